// A new version of a module: the semantic version, a changelog, the oldest Atrium it runs on, and
// the package (.zip) uploaded first with a progress bar. The server inspects the package (its
// atrium.json, its files) and lists every problem, shown under the package field; a clean version
// then waits for review.
import { useState, type FormEvent, type ReactElement } from 'react';
import { ApiError, request } from '../../lib/client/api';
import EditorSlot, { type EditorState } from '../modules/EditorSlot';
import { clearDraft } from '../../lib/client/drafts';
import { VersionInput } from '../../lib/shared/validation/studio';
import { translate, useForm, zodFields, type Messages } from '../user/form-helpers';
import { uploadWithProgress } from './upload-progress';
import { enqueueUpload, uploadConfig } from '../../lib/client/stores/upload';
import UploadQueue from '../upload/UploadQueue';
import ErrorSummary from '../user/ErrorSummary';
import '../upload/upload-queue.css';

interface Props {
  /** The editor module: installed or not, its client component (EditorSlot). */
  editor: EditorState;
  messages: Messages;
  moduleId: number;
  /** What the version field starts with (the next patch release). */
  suggested: string;
  /** The package size limit, readable ("20 MB"). */
  maxSize: string;
}

interface UploadedPackage { id: number; name: string; size: number; sha1: string }

/** Every problem the server found in a package (`data.problems`), in the developer's language. */
const problemsOf = (data: unknown): string[] => {
  const list = (data as { problems?: unknown } | null)?.problems;
  return Array.isArray(list) ? list.filter((p): p is string => typeof p === 'string') : [];
};

const kb = (bytes: number): string => (bytes >= 1024 * 1024 ? `${(bytes / 1024 / 1024).toFixed(1)} MB` : `${Math.ceil(bytes / 1024)} KB`);

export default function VersionForm({ messages, moduleId, suggested, maxSize, editor }: Props): ReactElement {
  const t = (k: string, values?: Record<string, string | number>): string => translate(messages, k, values);
  const { values, setValues, errors, setErrors, busy, formRef, run } = useForm({ version: suggested, changelog: '', min_atrium: '' });
  const [pkg, setPkg] = useState<UploadedPackage | null>(null);
  const [progress, setProgress] = useState<number | null>(null);
  /** A cloud upload in the page's queue (its progress shows there). */
  const [queued, setQueued] = useState(false);
  const [problems, setProblems] = useState<string[]>([]);
  const draftKey = `module-version:${moduleId}`;

  const upload = async (file: File | undefined): Promise<void> => {
    if (!file) return;
    if (!/\.zip$/i.test(file.name)) { setErrors((e) => ({ ...e, package_id: t('devstudio.package.notZipName') })); return; }
    setErrors((e) => ({ ...e, package_id: '' }));
    setProblems([]);
    setPkg(null);
    const mode = await uploadConfig().then((c) => c.mode, () => 'local' as const);
    if (mode !== 'local') {
      // Cloud mode: straight to the store's private prefix through the page's upload queue.
      setQueued(true);
      try {
        const stored = await enqueueUpload(file, { topic: 'package' });
        setPkg({ id: stored.id, name: stored.name, size: stored.size, sha1: stored.sha1 });
      } catch {
        // Canceled in the queue; a failure is shown there in the member's language.
      } finally {
        setQueued(false);
      }
      return;
    }
    setProgress(0);
    const form = new FormData();
    form.append('file', file);
    const reply = await uploadWithProgress<{ file: UploadedPackage }>('/api/developer/package', form, setProgress);
    setProgress(null);
    if (reply.code === 1 && reply.data) setPkg(reply.data.file);
    else {
      setErrors((e) => ({ ...e, package_id: reply.msg }));
      setProblems(problemsOf(reply.data));
    }
  };

  const submit = (event: FormEvent): void => {
    event.preventDefault();
    const body = { module_id: moduleId, version: values.version, changelog: values.changelog, min_atrium: values.min_atrium, package_id: pkg?.id ?? 0 };
    const parsed = VersionInput.safeParse(body);
    if (!parsed.success) { setErrors(zodFields(parsed.error, messages)); return; }
    setErrors({});
    void run(async () => {
      setProblems([]);
      await request('/api/developer/version', { method: 'POST', data: body, showSuccessMessage: true }).catch((err: unknown) => {
        if (err instanceof ApiError) setProblems(problemsOf(err.data));
        throw err;
      });
      clearDraft(draftKey);
      location.reload();
    });
  };

  const aria = (name: string) => (errors[name] ? { 'aria-invalid': true as const, 'aria-describedby': `${name}-error` } : {});
  const error = (name: string): ReactElement | null => (errors[name] ? <p className="field-error" id={`${name}-error`} role="alert">{errors[name]}</p> : null);
  const percent = progress === null ? 0 : Math.round(progress * 100);

  return (
    <form method="post" ref={formRef} className="card studio-form" onSubmit={submit} noValidate>
      <ErrorSummary errors={errors} formRef={formRef} messages={messages} />
      <h2>{t('devstudio.version.new')}</h2>
      <div className="studio-row">
        <div className="field">
          <label htmlFor="version-version">{t('devstudio.version.version')}</label>
          <input type="text" id="version-version" name="version" value={values.version} maxLength={20} autoCapitalize="off" spellCheck={false}
            onChange={(e) => setValues((v) => ({ ...v, version: e.target.value }))} {...aria('version')} />
          {error('version')}
        </div>
        <div className="field">
          <label htmlFor="version-min">{t('devstudio.version.minAtrium')}</label>
          <input type="text" id="version-min" name="min_atrium" value={values.min_atrium} maxLength={20} placeholder="1.0.0" autoCapitalize="off" spellCheck={false}
            onChange={(e) => setValues((v) => ({ ...v, min_atrium: e.target.value }))} {...aria('min_atrium')} />
          {error('min_atrium')}
        </div>
      </div>
      <div className="field">
        <EditorSlot editor={editor} name="changelog" label={t('devstudio.version.changelog')} value={values.changelog}
          onChange={(changelog) => setValues((v) => ({ ...v, changelog }))} messages={messages} draftKey={draftKey} uploadTopic="module" rows={6} />
        {error('changelog')}
      </div>
      <fieldset className="field">
        <legend>{t('devstudio.version.package')}</legend>
        <p className="small muted" id="package-hint">{t('devstudio.version.packageHint', { max: maxSize })}</p>
        <label className="btn">
          {progress !== null || queued ? t('devstudio.form.uploading') : t(pkg ? 'devstudio.version.replacePackage' : 'devstudio.version.choosePackage')}
          <input type="file" accept=".zip,application/zip" className="visually-hidden" disabled={progress !== null || queued} aria-describedby="package-hint"
            onChange={(e) => { void upload(e.target.files?.[0]); e.target.value = ''; }} />
        </label>
        {progress !== null && (
          <div className="studio-progress">
            <progress max={100} value={percent} aria-label={t('devstudio.version.uploadProgress')}>{percent}%</progress>
            <span aria-live="polite">{percent}%</span>
          </div>
        )}
        {pkg && <p role="status">{t('devstudio.version.packageReady', { name: pkg.name, size: kb(pkg.size) })}</p>}
        {error('package_id')}
        {problems.length > 0 && !(problems.length === 1 && problems[0] === errors.package_id) && (
          <div className="field-error package-problems" role="alert">
            <p>{t('devstudio.package.problemsTitle')}</p>
            <ul>{problems.map((p) => <li key={p}>{p}</li>)}</ul>
          </div>
        )}
      </fieldset>
      <p>
        <button className="btn btn-primary" type="submit" disabled={busy || progress !== null || queued}>{t('devstudio.version.submit')}</button>
      </p>
      <UploadQueue />
    </form>
  );
}
