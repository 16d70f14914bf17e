// What can be done to the page being edited, besides its text: move it among its siblings or
// under another page, rename it (the old address keeps working) or delete it.
import { useId, useState, type FormEvent, type ReactElement } from 'react';
import { request } from '../../lib/client/api';
import { MoveInput, RenameInput } from '../../lib/shared/validation/md';
import { zodFields } from '../user/form-helpers';
import { findNode, flattenTree, showSuccess, subtreeNames, translator, useCall, type Messages, type TreeNode } from './shared';

interface Props {
  book: string;
  tree: readonly TreeNode[];
  page: { name: string; title: string };
  /** The tree changed on the server: fetch it again. */
  onMoved(): Promise<void>;
  onRenamed(newName: string): Promise<void>;
  onDeleted(): Promise<void>;
  messages: Messages;
}

export default function PageActions({ book, tree, page, onMoved, onRenamed, onDeleted, messages }: Props): ReactElement {
  const t = translator(messages);
  const id = useId();
  const { busy, errors, setErrors, run } = useCall();
  const [renaming, setRenaming] = useState(false);
  const [newName, setNewName] = useState(page.name);
  const node = findNode(tree, page.name);
  const parentName = node ? (flattenTree(tree).find((e) => e.node.id === node.parentId)?.node.name ?? '') : '';
  const [target, setTarget] = useState(parentName);
  const blocked = node ? subtreeNames(node) : new Set<string>();

  const move = (to: { direction: 'up' | 'down' } | { parent: string }): Promise<void> => run(async () => {
    const input = MoveInput.parse({ book, name: page.name, ...to });
    const reply = await request('/api/md/move', { method: 'POST', data: input, showErrorMessage: false });
    showSuccess(reply.msg || t('mdedit.moved'));
    await onMoved();
  });

  const rename = (event: FormEvent): void => {
    event.preventDefault();
    const parsed = RenameInput.safeParse({ book, name: page.name, new_name: newName });
    if (!parsed.success) {
      setErrors(zodFields(parsed.error, messages));
      return;
    }
    void run(async () => {
      const reply = await request<{ name: string }>('/api/md/rename', { method: 'POST', data: parsed.data, showErrorMessage: false });
      showSuccess(reply.msg || t('mdedit.renamed'));
      setErrors({});
      setRenaming(false);
      await onRenamed(reply.data.name);
    });
  };

  const remove = (): void => {
    if (!confirm(t('mdedit.confirmDelete', { title: page.title }))) return;
    void run(async () => {
      const reply = await request('/api/md/delete', { method: 'POST', data: { book, name: page.name }, showErrorMessage: false });
      showSuccess(reply.msg || t('mdedit.deleted'));
      await onDeleted();
    });
  };

  return (
    <section className="md-actions" aria-labelledby={`${id}h`} data-testid="page-actions">
      <h2 id={`${id}h`} className="md-side__heading">{t('mdedit.thisPage')}</h2>
      <div className="md-actions__row">
        <button type="button" className="btn" disabled={busy} onClick={() => void move({ direction: 'up' })}>{t('mdedit.moveUp')}</button>
        <button type="button" className="btn" disabled={busy} onClick={() => void move({ direction: 'down' })}>{t('mdedit.moveDown')}</button>
      </div>
      <div className="md-actions__move">
        <label htmlFor={`${id}parent`}>{t('mdedit.moveTo')}</label>
        <div className="md-actions__row">
          <select id={`${id}parent`} value={target} onChange={(e) => setTarget(e.target.value)}>
            <option value="">{t('mdedit.topLevel')}</option>
            {flattenTree(tree).filter((e) => !blocked.has(e.node.name)).map(({ node: n, depth }) => (
              <option key={n.id} value={n.name}>{`${'\u00a0\u00a0'.repeat(depth)}${n.title}`}</option>
            ))}
          </select>
          <button type="button" className="btn" disabled={busy || target === parentName} onClick={() => void move({ parent: target })}>{t('mdedit.move')}</button>
        </div>
      </div>
      {renaming ? (
        <form method="post" className="md-actions__rename" onSubmit={rename} noValidate>
          <label htmlFor={`${id}name`}>{t('mdedit.newName')}</label>
          <input type="text" id={`${id}name`} value={newName} onChange={(e) => setNewName(e.target.value)} maxLength={100} autoComplete="off" spellCheck={false}
            aria-invalid={errors.new_name ? true : undefined} aria-describedby={errors.new_name ? `${id}name-error` : `${id}hint`} />
          <p className="small muted" id={`${id}hint`}>{t('mdedit.renameHint')}</p>
          {errors.new_name && <p className="field-error" id={`${id}name-error`} role="alert">{errors.new_name}</p>}
          <div className="md-actions__row">
            <button type="submit" className="btn btn-primary" disabled={busy}>{t('mdedit.rename')}</button>
            <button type="button" className="btn" onClick={() => { setRenaming(false); setErrors({}); setNewName(page.name); }}>{t('mdedit.cancel')}</button>
          </div>
        </form>
      ) : (
        <div className="md-actions__row">
          <button type="button" className="btn" disabled={busy} onClick={() => { setNewName(page.name); setRenaming(true); }}>{t('mdedit.rename')}</button>
          <button type="button" className="btn md-actions__delete" disabled={busy} onClick={remove}>{t('mdedit.delete')}</button>
        </div>
      )}
    </section>
  );
}
