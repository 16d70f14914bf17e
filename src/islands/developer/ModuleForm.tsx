// Creating or editing a module: name, uid, summary, the description in the site editor, a cover
// and screenshots uploaded through the upload queue (through the site's upload driver), category, tags and prices.
import { useState, type FormEvent, type ReactElement } from 'react';
import { request } from '../../lib/client/api';
import { enqueueUpload } from '../../lib/client/stores/upload';
import UploadQueue from '../upload/UploadQueue';
import EditorSlot, { type EditorState } from '../modules/EditorSlot';
import { clearDraft } from '../../lib/client/drafts';
import { MODULE_CATEGORIES } from '../../lib/shared/market';
import { MAX_SCREENSHOTS, ModuleInput, splitTags } from '../../lib/shared/validation/studio';
import { translate, useForm, zodFields, type Messages } from '../user/form-helpers';
import '../upload/upload-queue.css';

export interface ModuleFormValues {
  uid: string;
  name: string;
  summary: string;
  description: string;
  /** The same in English; empty ones fall back to the fields above. */
  name_en: string;
  summary_en: string;
  description_en: string;
  cover: string;
  screenshots: string[];
  category: string;
  /** Space- or comma-separated. */
  tags: string;
  /** Yuan. */
  price: string;
  score_price: string;
}

interface Props {
  /** The editor module: installed or not, its client component (EditorSlot). */
  editor: EditorState;
  messages: Messages;
  /** Absent `id`: a new module. */
  initial: ModuleFormValues & { id?: number };
  /** The module's status when editing (a published module stays published). */
  status?: string;
}

export default function ModuleForm({ messages, initial, status, editor }: Props): ReactElement {
  const t = (k: string, values?: Record<string, string | number>): string => translate(messages, k, values);
  const { id, ...start } = initial;
  const { values, setValues, errors, setErrors, busy, formRef, run } = useForm<ModuleFormValues>(start);
  const [uploading, setUploading] = useState<'cover' | 'screenshots' | null>(null);
  const draftKey = id ? `module-edit:${id}` : 'module-new';

  const set = (name: keyof ModuleFormValues) => (e: { target: { value: string } }) => setValues((v) => ({ ...v, [name]: e.target.value }));

  const uploadImages = async (target: 'cover' | 'screenshots', files: File[]): Promise<void> => {
    if (!files.length) return;
    setUploading(target);
    try {
      for (const file of files) {
        // Through the page's upload queue (progress, pause, cancel) and the site's upload driver:
        // `/storage/…` in local mode, the store's public URL in a cloud mode.
        const stored = await enqueueUpload(file, { topic: 'module' });
        const url = stored.storage && stored.storage !== 'local' && stored.full_url ? stored.full_url : stored.url;
        setValues((v) => (target === 'cover' ? { ...v, cover: url } : { ...v, screenshots: [...v.screenshots.filter((s) => s !== url), url].slice(0, MAX_SCREENSHOTS) }));
      }
      setErrors((e) => ({ ...e, [target]: '' }));
    } catch {
      // Canceled in the queue.
    } finally {
      setUploading(null);
    }
  };

  const submit = (event: FormEvent): void => {
    event.preventDefault();
    const body = {
      ...(id ? { id } : {}),
      uid: values.uid, name: values.name, summary: values.summary, description: values.description, cover: values.cover,
      name_en: values.name_en, summary_en: values.summary_en, description_en: values.description_en,
      screenshots: values.screenshots, category: values.category, tags: splitTags(values.tags), price: values.price || '0', score_price: values.score_price || '0',
    };
    const parsed = ModuleInput.safeParse(body);
    if (!parsed.success) { setErrors(zodFields(parsed.error, messages)); return; }
    setErrors({});
    void run(async () => {
      const { data } = await request<{ id: number; created: boolean }>('/api/developer/save', { method: 'POST', data: body, showSuccessMessage: true });
      clearDraft(draftKey);
      // A new module goes on to its first version; an edit stays where it is.
      if (data.created) location.assign(`?versions=${data.id}`);
    });
  };

  const aria = (name: string) => (errors[name] ? { 'aria-invalid': true as const, 'aria-describedby': `${name}-error` } : {});
  const error = (name: string): ReactElement | null => (errors[name] ? <p className="field-error" id={`${name}-error`} role="alert">{errors[name]}</p> : null);
  const free = (Number(values.price) || 0) === 0 && (Number(values.score_price) || 0) === 0;

  return (
    <form method="post" ref={formRef} className="card studio-form" onSubmit={submit} noValidate>
      {status === 'published' && <p className="studio-note" role="note">{t('devstudio.form.publishedNote')}</p>}
      <div className="field">
        <label htmlFor="module-name">{t('devstudio.form.name')}</label>
        <input type="text" id="module-name" name="name" value={values.name} onChange={set('name')} maxLength={60} required {...aria('name')} />
        {error('name')}
      </div>
      <div className="field">
        <label htmlFor="module-uid">{t('devstudio.form.uid')}</label>
        <input type="text" id="module-uid" name="uid" value={values.uid} onChange={set('uid')} maxLength={40} readOnly={Boolean(id)} autoCapitalize="off" spellCheck={false}
          aria-describedby={errors.uid ? 'uid-error' : 'uid-hint'} {...(errors.uid ? { 'aria-invalid': true } : {})} />
        <p className="small muted" id="uid-hint">{t(id ? 'devstudio.form.uidFixed' : 'devstudio.form.uidHint')}</p>
        {error('uid')}
      </div>
      <div className="field">
        <label htmlFor="module-summary">{t('devstudio.form.summary')}</label>
        <input type="text" id="module-summary" name="summary" value={values.summary} onChange={set('summary')} maxLength={150} {...aria('summary')} />
        {error('summary')}
      </div>
      <div className="field">
        <label htmlFor="module-category">{t('devstudio.form.category')}</label>
        <select id="module-category" name="category" value={values.category} onChange={set('category')} {...aria('category')}>
          {MODULE_CATEGORIES.map((c) => <option key={c} value={c}>{t(`devstudio.category.${c}`)}</option>)}
        </select>
        {error('category')}
      </div>
      <div className="field">
        <label htmlFor="module-tags">{t('devstudio.form.tags')}</label>
        <input type="text" id="module-tags" name="tags" value={values.tags} onChange={set('tags')} maxLength={200} aria-describedby="tags-hint" {...(errors.tags ? { 'aria-invalid': true } : {})} />
        <p className="small muted" id="tags-hint">{t('devstudio.form.tagsHint')}</p>
        {error('tags')}
      </div>
      <div className="field">
        <EditorSlot editor={editor} name="description" label={t('devstudio.form.description')} value={values.description}
          onChange={(description) => setValues((v) => ({ ...v, description }))} messages={messages} draftKey={draftKey} uploadTopic="module" rows={14} />
        {error('description')}
      </div>
      <fieldset className="field">
        <legend>{t('devstudio.form.english')}</legend>
        <p className="small muted">{t('devstudio.form.englishHint')}</p>
        <label htmlFor="module-name-en">{t('devstudio.form.nameEn')}</label>
        <input type="text" id="module-name-en" name="name_en" lang="en" value={values.name_en} onChange={set('name_en')} maxLength={60} {...aria('name_en')} />
        {error('name_en')}
        <label htmlFor="module-summary-en">{t('devstudio.form.summaryEn')}</label>
        <input type="text" id="module-summary-en" name="summary_en" lang="en" value={values.summary_en} onChange={set('summary_en')} maxLength={150} {...aria('summary_en')} />
        {error('summary_en')}
        <EditorSlot editor={editor} name="description_en" label={t('devstudio.form.descriptionEn')} value={values.description_en}
          onChange={(description_en) => setValues((v) => ({ ...v, description_en }))} messages={messages} draftKey={`${draftKey}:en`} uploadTopic="module" rows={8} />
        {error('description_en')}
      </fieldset>

      <fieldset className="field">
        <legend>{t('devstudio.form.cover')}</legend>
        <div className="studio-images">
          {values.cover && (
            <figure className="studio-thumb">
              <img src={values.cover} alt={t('devstudio.form.cover')} />
              <button type="button" className="link-btn" onClick={() => setValues((v) => ({ ...v, cover: '' }))}>{t('devstudio.form.remove')}</button>
            </figure>
          )}
          <label className="btn">
            {uploading === 'cover' ? t('devstudio.form.uploading') : t(values.cover ? 'devstudio.form.replaceImage' : 'devstudio.form.uploadImage')}
            <input type="file" accept="image/png,image/jpeg,image/gif,image/webp" className="visually-hidden" disabled={uploading !== null}
              onChange={(e) => { void uploadImages('cover', Array.from(e.target.files ?? []).slice(0, 1)); e.target.value = ''; }} />
          </label>
        </div>
        {error('cover')}
      </fieldset>

      <fieldset className="field">
        <legend>{t('devstudio.form.screenshots', { max: MAX_SCREENSHOTS })}</legend>
        <div className="studio-images">
          {values.screenshots.map((url, i) => (
            <figure className="studio-thumb" key={url}>
              <img src={url} alt={t('devstudio.form.screenshotN', { n: i + 1 })} />
              <button type="button" className="link-btn" onClick={() => setValues((v) => ({ ...v, screenshots: v.screenshots.filter((s) => s !== url) }))}>{t('devstudio.form.remove')}</button>
            </figure>
          ))}
          {values.screenshots.length < MAX_SCREENSHOTS && (
            <label className="btn">
              {uploading === 'screenshots' ? t('devstudio.form.uploading') : t('devstudio.form.addScreenshots')}
              <input type="file" multiple accept="image/png,image/jpeg,image/gif,image/webp" className="visually-hidden" disabled={uploading !== null}
                onChange={(e) => { void uploadImages('screenshots', Array.from(e.target.files ?? []).slice(0, MAX_SCREENSHOTS - values.screenshots.length)); e.target.value = ''; }} />
            </label>
          )}
        </div>
        {error('screenshots')}
      </fieldset>

      <fieldset className="field">
        <legend>{t('devstudio.form.prices')}</legend>
        <div className="studio-row">
          <label className="field">
            <span>{t('devstudio.form.price')}</span>
            <input type="text" name="price" inputMode="decimal" value={values.price} onChange={set('price')} {...aria('price')} />
            {error('price')}
          </label>
          <label className="field">
            <span>{t('devstudio.form.scorePrice')}</span>
            <input type="text" name="score_price" inputMode="numeric" value={values.score_price} onChange={set('score_price')} {...aria('score_price')} />
            {error('score_price')}
          </label>
        </div>
        <p className="small muted" role="status">{t(free ? 'devstudio.form.freeHint' : 'devstudio.form.priceHint')}</p>
      </fieldset>

      <p>
        <button className="btn btn-primary" type="submit" disabled={busy || uploading !== null}>{t(id ? 'devstudio.form.save' : 'devstudio.form.create')}</button>
      </p>
      <UploadQueue />
    </form>
  );
}
