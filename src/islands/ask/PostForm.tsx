// Writing or editing a post: title, category, tags and the body in the site editor. A draft is kept
// in the browser until the post is published; a double submit creates one post (form nonce).
import { useEffect, useRef, type FormEvent } from 'react';
import { request } from '../../lib/client/api';
import { formNonce } from '../../lib/client/nonce';
import EditorSlot, { type EditorState } from '../modules/EditorSlot';
import { clearDraft } from '../../lib/client/drafts';
import { PostInput } from '../../lib/shared/validation/ask';
import { translate, useForm, zodFields, type Messages } from '../user/form-helpers';
import ErrorSummary from '../user/ErrorSummary';

interface Props {
  /** The editor module: installed or not, its client component (EditorSlot). */
  editor: EditorState;
  messages: Messages;
  categories: { id: number; title: string }[];
  initial: { id?: number; title: string; category_id: number; tags: string; content: string };
  /** Where a published post lives, with `{id}` (subdomain-aware, from the server). */
  postUrl: string;
}

export function splitTags(text: string): string[] {
  return [...new Set(text.split(/[\s,，、]+/).map((s) => s.replace(/^#/, '').trim()).filter(Boolean))];
}

export default function PostForm({ messages, categories, initial, postUrl, editor }: Props) {
  const { values, setValues, errors, setErrors, busy, formRef, run } = useForm({
    title: initial.title, category_id: String(initial.category_id || categories[0]?.id || ''), tags: initial.tags, content: initial.content,
  });
  const nonce = useRef(formNonce());
  const draftKey = initial.id ? `ask-edit:${initial.id}` : 'ask-new';
  const metaKey = `atrium-draft-meta:${draftKey}`;
  // The editor keeps the body's draft; the title, category and tags are kept beside it.
  useEffect(() => {
    try {
      const saved = JSON.parse(localStorage.getItem(metaKey) ?? 'null') as { title?: string; category_id?: string; tags?: string } | null;
      if (saved && !initial.id) setValues((v) => ({ ...v, title: v.title || saved.title || '', tags: v.tags || saved.tags || '', category_id: saved.category_id || v.category_id }));
    } catch { /* private mode or a damaged entry: start empty */ }
  }, [metaKey, initial.id, setValues]);
  useEffect(() => {
    try { localStorage.setItem(metaKey, JSON.stringify({ title: values.title, category_id: values.category_id, tags: values.tags })); } catch { /* storage full or blocked */ }
  }, [metaKey, values.title, values.category_id, values.tags]);
  const set = (name: keyof typeof values) => (e: { target: { value: string } }) => setValues({ ...values, [name]: e.target.value });

  const submit = (event: FormEvent): void => {
    event.preventDefault();
    const parsed = PostInput.safeParse({
      ...(initial.id ? { id: initial.id } : { nonce: nonce.current }),
      title: values.title, category_id: values.category_id, tags: splitTags(values.tags), content: values.content,
    });
    if (!parsed.success) { setErrors(zodFields(parsed.error, messages)); return; }
    setErrors({});
    void run(async () => {
      const { data } = await request<{ id: number }>('/api/ask/post', { method: 'POST', data: parsed.data, showSuccessMessage: true });
      clearDraft(draftKey);
      try { localStorage.removeItem(metaKey); } catch { /* nothing to clear */ }
      location.assign(postUrl.replace('{id}', String(data.id)));
    });
  };

  const field = (name: string) => ({ 'aria-invalid': errors[name] ? true : undefined, 'aria-describedby': errors[name] ? `${name}-error` : undefined });
  return (
    <form method="post" ref={formRef} className="post-form card" onSubmit={submit} noValidate>
      <ErrorSummary errors={errors} formRef={formRef} messages={messages} />
      <div className="field">
        <label htmlFor="post-title">{translate(messages, 'ask.post.titleLabel')}</label>
        <input type="text" id="post-title" name="title" value={values.title} onChange={set('title')} maxLength={150} placeholder={translate(messages, 'ask.post.titlePlaceholder')} required {...field('title')} />
        {errors.title && <p className="field-error" id="title-error" role="alert">{errors.title}</p>}
      </div>
      <div className="field">
        <label htmlFor="post-category">{translate(messages, 'ask.post.category')}</label>
        <select id="post-category" name="category_id" value={values.category_id} onChange={set('category_id')} {...field('category_id')}>
          {categories.map((c) => <option key={c.id} value={c.id}>{c.title}</option>)}
        </select>
        {errors.category_id && <p className="field-error" id="category_id-error" role="alert">{errors.category_id}</p>}
      </div>
      <div className="field">
        <label htmlFor="post-tags">{translate(messages, 'ask.post.tags')}</label>
        <input type="text" id="post-tags" name="tags" value={values.tags} onChange={set('tags')} maxLength={200} aria-describedby="tags-hint" {...(errors.tags ? { 'aria-invalid': true } : {})} />
        <p className="small muted" id="tags-hint">{translate(messages, 'ask.post.tagsHint')}</p>
        {errors.tags && <p className="field-error" role="alert">{errors.tags}</p>}
      </div>
      <div className="field">
        <EditorSlot editor={editor}
          name="content" label={translate(messages, 'ask.post.content')} value={values.content}
          onChange={(content) => setValues((v) => ({ ...v, content }))} messages={messages} draftKey={draftKey} uploadTopic="ask" rows={16} layout="split"
        />
        {errors.content && <p className="field-error" role="alert">{errors.content}</p>}
      </div>
      <p>
        <button className="btn btn-primary" type="submit" disabled={busy}>{translate(messages, initial.id ? 'ask.post.save' : 'ask.post.submit')}</button>
      </p>
    </form>
  );
}
