// The upload queue panel: every upload of the page (avatar, editors, module images) with its state,
// progress, speed and time left, and pause / resume / cancel. It renders the shared store only.
import { useStore } from '@nanostores/react';
import { useEffect, useState, type ReactElement } from 'react';
import { $uploads, cancelUpload, clearFinished, pauseUpload, restartUpload, type UploadTaskView } from '../../lib/client/stores/upload';
import { canCancel, canPause, canRestart, queueIdle } from '../../lib/shared/upload-queue';
import { formatBytes, formatDuration, tu } from '../../lib/client/upload/messages';

let mounted = 0;

function percentOf(t: UploadTaskView): number {
  if (t.state === 'success') return 100;
  const done = t.state === 'checking' ? t.hashed : t.loaded;
  return t.size > 0 ? Math.floor((done / t.size) * 100) : 0;
}

function Row({ task }: { task: UploadTaskView }): ReactElement {
  const percent = percentOf(task);
  return (
    <li className={`upq-row upq-row--${task.state}`} data-state={task.state}>
      <div className="upq-line">
        <span className="upq-name" title={task.name}>{task.name}</span>
        <span className="upq-size">{formatBytes(task.size)}</span>
      </div>
      <progress max={100} value={percent} aria-label={tu('upload.queue.progress', { name: task.name })}>{percent}%</progress>
      <div className="upq-line upq-meta">
        <span className="upq-state">{tu(`upload.state.${task.state}`)}{task.state === 'checking' || task.state === 'uploading' ? ` · ${percent}%` : ''}</span>
        {task.state === 'uploading' && task.speed > 0 && <span>{tu('upload.queue.speed', { speed: formatBytes(task.speed) })}</span>}
        {task.state === 'uploading' && task.remaining !== null && <span>{tu('upload.queue.remaining', { time: formatDuration(task.remaining) })}</span>}
      </div>
      {task.error && <p className="upq-error" role="alert">{task.error}</p>}
      <div className="upq-actions">
        {canPause(task.state) && <button type="button" className="btn" onClick={() => pauseUpload(task.id)}>{tu('upload.queue.pause')}</button>}
        {canRestart(task.state) && <button type="button" className="btn" onClick={() => restartUpload(task.id)}>{tu(task.state === 'error' ? 'upload.queue.retry' : 'upload.queue.resume')}</button>}
        {canCancel(task.state) && <button type="button" className="btn" onClick={() => cancelUpload(task.id)}>{tu('upload.queue.cancel')}</button>}
      </div>
    </li>
  );
}

/** Render it once per page (extra copies render nothing); it shows itself when there is something to show. */
export default function UploadQueue(): ReactElement | null {
  const tasks = useStore($uploads);
  const [primary, setPrimary] = useState(false);
  // Open while something is running, failed or paused; folded to its header when idle, unless the
  // member opened or folded it themselves (until the queue's next busy spell).
  const idle = queueIdle(tasks.map((t) => t.state));
  const [chosen, setChosen] = useState<boolean | null>(null);
  useEffect(() => { if (!idle) setChosen(null); }, [idle]);
  const open = chosen ?? !idle;
  useEffect(() => {
    mounted++;
    setPrimary(mounted === 1);
    return () => { mounted--; };
  }, []);
  if (!primary || tasks.length === 0) return null;
  const total = tasks.reduce((s, t) => s + t.size, 0);
  const done = tasks.reduce((s, t) => s + (t.state === 'success' ? t.size : t.loaded), 0);
  const finished = tasks.filter((t) => t.state === 'success').length;
  const percent = total > 0 ? Math.floor((done / total) * 100) : 0;
  return (
    <section className="upq" aria-label={tu('upload.queue.title')}>
      <header className="upq-head">
        <strong>{tu('upload.queue.title')}</strong>
        <span className="upq-total" role="status">{tu('upload.queue.total', { percent, done: finished, count: tasks.length })}</span>
        <button type="button" className="btn upq-toggle" aria-expanded={open} aria-controls="upq-list" onClick={() => setChosen(!open)}>{tu(open ? 'upload.queue.collapse' : 'upload.queue.expand')}</button>
      </header>
      <div id="upq-list" className="upq-body" hidden={!open}>
        <ul className="upq-list">{tasks.map((t) => <Row key={t.id} task={t} />)}</ul>
        {tasks.some((t) => t.state === 'success' || t.state === 'canceled') && (
          <button type="button" className="btn upq-clear" onClick={clearFinished}>{tu('upload.queue.clear')}</button>
        )}
      </div>
    </section>
  );
}
