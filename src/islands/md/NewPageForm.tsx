// Creates a page: its name (the address), title and place in the tree.
import { useId, useState, type FormEvent, type ReactElement } from 'react';
import { request } from '../../lib/client/api';
import { CreateInput } from '../../lib/shared/validation/md';
import { zodFields } from '../user/form-helpers';
import { flattenTree, showSuccess, translator, useCall, type Messages, type PageData, type TreeNode } from './shared';

interface Props {
  book: string;
  tree: readonly TreeNode[];
  heading: string;
  lead?: string;
  initialName?: string;
  initialParent?: string;
  /** Asked before the new page replaces the one being edited; false cancels. */
  confirmLeave?(): boolean;
  onCreated(page: PageData): void;
  onCancel?(): void;
  messages: Messages;
}

export default function NewPageForm({ book, tree, heading, lead, initialName = '', initialParent = '', confirmLeave, onCreated, onCancel, messages }: Props): ReactElement {
  const t = translator(messages);
  const id = useId();
  const [values, setValues] = useState({ name: initialName, title: '', parent: initialParent });
  const { busy, errors, setErrors, run } = useCall();

  const submit = async (event: FormEvent): Promise<void> => {
    event.preventDefault();
    const parsed = CreateInput.safeParse({ book, ...values });
    if (!parsed.success) {
      setErrors(zodFields(parsed.error, messages));
      return;
    }
    if (confirmLeave && !confirmLeave()) return;
    setErrors({});
    await run(async () => {
      const reply = await request<{ name: string; revision_id: number }>('/api/md/create', { method: 'POST', data: parsed.data, showErrorMessage: false });
      showSuccess(reply.msg || t('mdedit.created'));
      onCreated({ name: reply.data.name, title: parsed.data.title, content: '', revision_id: reply.data.revision_id });
    });
  };

  const field = (name: 'name' | 'title') => ({
    id: `${id}${name}`, name, value: values[name],
    onChange: (e: { target: { value: string } }) => setValues((v) => ({ ...v, [name]: e.target.value })),
    'aria-invalid': errors[name] ? true : undefined,
    'aria-describedby': [name === 'name' ? `${id}hint` : '', errors[name] ? `${id}${name}-error` : ''].filter(Boolean).join(' ') || undefined,
  });
  return (
    <form method="post" className="md-new" onSubmit={(e) => void submit(e)} noValidate aria-labelledby={`${id}h`} data-testid="new-page-form">
      <h2 id={`${id}h`} className="md-new__heading">{heading}</h2>
      {lead && <p className="muted small">{lead}</p>}
      <div className="field">
        <label htmlFor={`${id}name`}>{t('mdedit.name')}</label>
        <input type="text" {...field('name')} maxLength={100} autoComplete="off" spellCheck={false} />
        <p className="small muted" id={`${id}hint`}>{t('mdedit.nameHint')}</p>
        {errors.name && <p className="field-error" id={`${id}name-error`} role="alert">{errors.name}</p>}
      </div>
      <div className="field">
        <label htmlFor={`${id}title`}>{t('mdedit.pageTitle')}</label>
        <input type="text" {...field('title')} maxLength={150} />
        {errors.title && <p className="field-error" id={`${id}title-error`} role="alert">{errors.title}</p>}
      </div>
      {tree.length > 0 && (
        <div className="field">
          <label htmlFor={`${id}parent`}>{t('mdedit.parent')}</label>
          <select id={`${id}parent`} name="parent" value={values.parent} onChange={(e) => setValues((v) => ({ ...v, parent: e.target.value }))}>
            <option value="">{t('mdedit.topLevel')}</option>
            {flattenTree(tree).map(({ node, depth }) => (
              <option key={node.id} value={node.name}>{`${'\u00a0\u00a0'.repeat(depth)}${node.title}`}</option>
            ))}
          </select>
          {errors.parent && <p className="field-error" role="alert">{errors.parent}</p>}
        </div>
      )}
      <p className="md-new__actions">
        <button type="submit" className="btn btn-primary" disabled={busy}>{t('mdedit.create')}</button>
        {onCancel && <button type="button" className="btn" onClick={onCancel}>{t('mdedit.cancel')}</button>}
      </p>
    </form>
  );
}
