// A page's revisions, newest first: tick any two to see what changed between them, or restore one
// (as a new revision: history is never rewritten).
import { useCallback, useEffect, useId, useState, type ReactElement } from 'react';
import { request } from '../../lib/client/api';
import DiffTable from './DiffTable';
import { formatTime, showError, showSuccess, translator, type Messages } from './shared';

interface Revision {
  id: number;
  title: string;
  message: string;
  author: string;
  size: number;
  create_time: number;
}

interface RevisionText {
  id: number;
  title: string;
  content: string;
}

interface Props {
  book: string;
  name: string;
  /** Asked before a restore replaces the text in the editor; false cancels. */
  confirmReplace(): boolean;
  /** After a restore: load the page again. */
  onRestored(): void;
  onClose(): void;
  timeZone: string;
  messages: Messages;
}

export default function HistoryView({ book, name, confirmReplace, onRestored, onClose, timeZone, messages }: Props): ReactElement {
  const t = translator(messages);
  const id = useId();
  const [list, setList] = useState<Revision[] | null>(null);
  const [current, setCurrent] = useState(0);
  const [picked, setPicked] = useState<number[]>([]);
  const [compared, setCompared] = useState<[RevisionText, RevisionText] | null>(null);
  const [busy, setBusy] = useState(false);

  const load = useCallback(async (): Promise<void> => {
    try {
      const { data } = await request<{ current: number; list: Revision[] }>('/api/md/history', { params: { book, name }, showErrorMessage: false });
      setList(data.list);
      setCurrent(data.current);
      // The two newest are what one compares most often: ready to go.
      setPicked(data.list.slice(0, 2).map((r) => r.id));
      setCompared(null);
    } catch (err) {
      setList([]);
      showError(err);
    }
  }, [book, name]);
  useEffect(() => { void load(); }, [load]);

  const toggle = (revision: number): void => {
    setPicked((p) => (p.includes(revision) ? p.filter((x) => x !== revision) : [...p, revision].slice(-2)));
  };

  const compare = async (): Promise<void> => {
    if (picked.length !== 2) return;
    const [older, newer] = [...picked].sort((a, b) => a - b) as [number, number];
    setBusy(true);
    try {
      const { data } = await request<{ list: RevisionText[] }>('/api/md/revision', { params: { book, name, ids: `${older},${newer}` }, showErrorMessage: false });
      setCompared([data.list[0]!, data.list[1]!]);
    } catch (err) {
      showError(err);
    } finally {
      setBusy(false);
    }
  };

  const restore = async (revision: number): Promise<void> => {
    if (!confirm(t('mdedit.history.confirmRestore', { id: revision })) || !confirmReplace()) return;
    setBusy(true);
    try {
      const reply = await request<{ revision_id: number }>('/api/md/restore', { method: 'POST', data: { book, name, revision_id: revision }, showErrorMessage: false });
      showSuccess(reply.msg || t('mdedit.history.restored'));
      onRestored();
      await load();
    } catch (err) {
      showError(err);
    } finally {
      setBusy(false);
    }
  };

  return (
    <section className="md-history" aria-labelledby={`${id}h`} data-testid="history-view">
      <div className="md-history__head">
        <h2 id={`${id}h`} className="md-history__heading">{t('mdedit.history.title')}</h2>
        <button type="button" className="btn" onClick={onClose}>{t('mdedit.history.back')}</button>
      </div>
      {list === null ? (
        <p className="muted" role="status">{t('mdedit.loading')}</p>
      ) : list.length === 0 ? (
        <p className="muted">{t('mdedit.history.empty')}</p>
      ) : (
        <>
          <p className="muted small">{t('mdedit.history.hint')}</p>
          <div className="md-history__scroll">
            <table className="md-history__table">
              <thead>
                <tr>
                  <th scope="col"><span className="visually-hidden">{t('mdedit.history.pick')}</span></th>
                  <th scope="col">{t('mdedit.history.revision')}</th>
                  <th scope="col">{t('mdedit.history.time')}</th>
                  <th scope="col">{t('mdedit.history.author')}</th>
                  <th scope="col">{t('mdedit.history.message')}</th>
                  <th scope="col">{t('mdedit.history.size')}</th>
                  <th scope="col"><span className="visually-hidden">{t('mdedit.history.actions')}</span></th>
                </tr>
              </thead>
              <tbody>
                {list.map((r) => (
                  <tr key={r.id} data-testid="history-row" data-revision={r.id} className={r.id === current ? 'is-current' : undefined}>
                    <td>
                      <input type="checkbox" checked={picked.includes(r.id)} onChange={() => toggle(r.id)}
                        aria-label={t('mdedit.history.pickRevision', { id: r.id })} />
                    </td>
                    <td>
                      #{r.id}
                      {r.id === current && <span className="badge md-history__current">{t('mdedit.history.current')}</span>}
                    </td>
                    <td><time dateTime={new Date(r.create_time * 1000).toISOString()}>{formatTime(r.create_time, timeZone)}</time></td>
                    <td>{r.author || '—'}</td>
                    <td className="md-history__message">{r.message || <span className="muted">{t('mdedit.history.noMessage')}</span>}</td>
                    <td>{t('mdedit.history.chars', { count: r.size })}</td>
                    <td>
                      {r.id !== current && (
                        <button type="button" className="btn md-history__restore" disabled={busy} onClick={() => void restore(r.id)}
                          aria-label={t('mdedit.history.restoreRevision', { id: r.id })}>
                          {t('mdedit.history.restore')}
                        </button>
                      )}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          <p>
            <button type="button" className="btn btn-primary" disabled={picked.length !== 2 || busy} onClick={() => void compare()} data-testid="history-compare">
              {t('mdedit.history.compare')}
            </button>
          </p>
          {compared && (
            <div className="md-history__diff">
              <h3 className="md-history__subheading">{t('mdedit.history.comparing', { old: compared[0].id, new: compared[1].id })}</h3>
              {compared[0].title !== compared[1].title && (
                <p className="small">{t('mdedit.history.titleChanged', { old: compared[0].title, new: compared[1].title })}</p>
              )}
              <DiffTable oldText={compared[0].content} newText={compared[1].content} messages={messages}
                label={t('mdedit.history.comparing', { old: compared[0].id, new: compared[1].id })} testId="history-diff" />
            </div>
          )}
        </>
      )}
    </section>
  );
}
