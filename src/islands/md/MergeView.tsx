// Shown when a save met someone else's newer version: theirs (read-only) beside yours (editable:
// it becomes the merged text), and a line diff between them. Nothing is saved or discarded until
// the author picks "keep mine" or "take theirs"; meanwhile their text stays in the local draft.
import { useDeferredValue, useEffect, useId, useRef, type ReactElement } from 'react';
import DiffTable from './DiffTable';
import { formatTime, translator, type Conflict, type Messages } from './shared';

interface Props {
  conflict: Conflict;
  title: string;
  content: string;
  onTitle(title: string): void;
  onContent(content: string): void;
  /** Saves the editable text on top of their revision. */
  onKeepMine(): void;
  /** Replaces the editable text with theirs. */
  onTakeTheirs(): void;
  busy: boolean;
  timeZone: string;
  messages: Messages;
}

export default function MergeView({ conflict, title, content, onTitle, onContent, onKeepMine, onTakeTheirs, busy, timeZone, messages }: Props): ReactElement {
  const t = translator(messages);
  const id = useId();
  const headingRef = useRef<HTMLHeadingElement>(null);
  // The diff follows the typing without holding it up.
  const mine = useDeferredValue(content);
  // Announce the view and bring it into sight when a conflict arrives.
  useEffect(() => {
    headingRef.current?.focus();
  }, [conflict.revision_id]);
  const when = formatTime(conflict.time, timeZone);
  return (
    <section className="md-merge" aria-labelledby={`${id}h`} data-testid="merge-view">
      <h2 id={`${id}h`} ref={headingRef} tabIndex={-1} className="md-merge__heading">{t('mdedit.conflict.title')}</h2>
      <p className="md-merge__lead">{t('mdedit.conflict.lead')}</p>
      <div className="md-merge__cols">
        <div className="md-merge__col md-merge__col--theirs">
          <h3 className="md-merge__label">{t('mdedit.conflict.theirs')}</h3>
          <p className="md-merge__meta" data-testid="merge-theirs-meta">
            {t('mdedit.conflict.by', { author: conflict.author || t('mdedit.someone'), time: when, id: conflict.revision_id })}
          </p>
          <label className="md-merge__field">
            <span>{t('mdedit.pageTitle')}</span>
            <input type="text" value={conflict.title} readOnly />
          </label>
          <label className="md-merge__field">
            <span>{t('mdedit.conflict.theirsText')}</span>
            <textarea className="md-merge__text" value={conflict.content} readOnly rows={18} data-testid="merge-theirs" />
          </label>
        </div>
        <div className="md-merge__col md-merge__col--mine">
          <h3 className="md-merge__label">{t('mdedit.conflict.mine')}</h3>
          <p className="md-merge__meta">{t('mdedit.conflict.mineHint')}</p>
          <label className="md-merge__field">
            <span>{t('mdedit.pageTitle')}</span>
            <input type="text" value={title} maxLength={150} onChange={(e) => onTitle(e.target.value)} data-testid="merge-mine-title" />
          </label>
          <label className="md-merge__field">
            <span>{t('mdedit.conflict.merged')}</span>
            <textarea className="md-merge__text" value={content} rows={18} onChange={(e) => onContent(e.target.value)} data-testid="merge-mine" spellCheck={false} />
          </label>
        </div>
      </div>
      <h3 className="md-merge__label">{t('mdedit.conflict.diff')}</h3>
      <DiffTable oldText={conflict.content} newText={mine} messages={messages} label={t('mdedit.conflict.diff')} testId="merge-diff" />
      <div className="md-merge__actions">
        <button type="button" className="btn btn-primary" onClick={onKeepMine} disabled={busy} data-testid="merge-keep-mine">{t('mdedit.conflict.keepMine')}</button>
        <button type="button" className="btn" onClick={onTakeTheirs} disabled={busy} data-testid="merge-take-theirs">{t('mdedit.conflict.takeTheirs')}</button>
      </div>
    </section>
  );
}
