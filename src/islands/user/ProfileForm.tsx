// The member's profile: nickname, gender, birthday, motto (and username, unique).
import { useEffect, useRef, useState, type FormEvent, type ReactElement } from 'react';
import { request } from '../../lib/client/api';
import { enqueueUpload } from '../../lib/client/stores/upload';
import UploadQueue from '../upload/UploadQueue';
import { ProfileInput } from '../../lib/shared/validation/account';
import { updateUser } from '../../lib/client/stores/user';
import '../../lib/client/header-user';
import { translate, useForm, zodFields, type Messages } from './form-helpers';
import ErrorSummary from './ErrorSummary';
import '../upload/upload-queue.css';

export interface ProfileValues {
  avatar: string;
  username: string;
  nickname: string;
  gender: number;
  birthday: string;
  motto: string;
  /** '' follows the site's zone. */
  time_zone: string;
}

/** Every zone this browser knows; the member's current one first in line when it is not among them. */
function zones(current: string): string[] {
  const all = typeof Intl.supportedValuesOf === 'function' ? Intl.supportedValuesOf('timeZone') : [];
  return current && !all.includes(current) ? [current, ...all] : all;
}

export default function ProfileForm({ messages, initial, siteTimeZone }: { messages: Messages; initial: ProfileValues; siteTimeZone: string }): ReactElement {
  const t = (k: string): string => translate(messages, k);
  const { values, setValues, errors, setErrors, busy, formRef, run } = useForm(initial);

  const submit = async (e: FormEvent): Promise<void> => {
    e.preventDefault();
    const parsed = ProfileInput.safeParse(values);
    if (!parsed.success) return setErrors(zodFields(parsed.error, messages));
    setErrors({});
    await run(async () => {
      await request('/api/account/profile', { data: values, showSuccessMessage: true });
      updateUser({ nickname: values.nickname, username: values.username, avatar: values.avatar });
    });
  };

  const [uploading, setUploading] = useState(false);
  const upload = async (file: File | undefined): Promise<void> => {
    if (!file) return;
    setUploading(true);
    try {
      // Through the page's upload queue: local or straight to the object store, with progress.
      const stored = await enqueueUpload(file, { topic: 'avatar' });
      setValues((v) => ({ ...v, avatar: stored.storage === 'local' ? stored.url : String(stored.full_url) }));
      setErrors((e) => ({ ...e, avatar: '' }));
    } catch {
      // Canceled in the queue: the avatar stays as it was.
    } finally {
      setUploading(false);
    }
  };

  // A picture chosen before this form hydrated sits in the file input with nobody to hear its
  // change event (a slow phone, the first seconds of the page): upload it now rather than drop it.
  const fileInput = useRef<HTMLInputElement>(null);
  useEffect(() => {
    const input = fileInput.current;
    if (!input?.files?.length) return;
    void upload(input.files[0]);
    input.value = '';
    // Once, at hydration; later choices come through onChange.
  }, []);

  const error = (name: string): ReactElement | null => (errors[name] ? <span className="field-error" role="alert" id={`err-${name}`}>{errors[name]}</span> : null);
  const aria = (name: string) => (errors[name] ? { 'aria-invalid': true, 'aria-describedby': `err-${name}` } : {});

  return (
    <form method="post" ref={formRef} className="card form-narrow" onSubmit={(e) => void submit(e)} noValidate>
      <ErrorSummary errors={errors} formRef={formRef} messages={messages} />
      <div className="field">
        <span>{t('user.profile.avatar')}</span>
        <div className="avatar-row">
          <span className="avatar avatar-lg" aria-hidden="true">{values.avatar ? <img src={values.avatar} alt="" /> : (values.nickname || '?').slice(0, 1).toUpperCase()}</span>
          <label className="btn">
            {uploading ? t('user.profile.uploading') : t('user.profile.upload')}
            <input ref={fileInput} type="file" name="avatarFile" accept="image/png,image/jpeg,image/gif,image/webp" className="visually-hidden"
              onChange={(e) => { void upload(e.target.files?.[0]); e.target.value = ''; }} />
          </label>
        </div>
        {error('avatar')}
      </div>
      <label className="field"><span>{t('user.login.username')}</span>
        <input type="text" name="username" value={values.username} {...aria('username')} onChange={(e) => setValues({ ...values, username: e.target.value })} />{error('username')}</label>
      <label className="field"><span>{t('user.profile.nickname')}</span>
        <input type="text" name="nickname" value={values.nickname} {...aria('nickname')} onChange={(e) => setValues({ ...values, nickname: e.target.value })} />{error('nickname')}</label>
      <fieldset className="field radio-group"><legend>{t('user.profile.gender')}</legend>
        {[0, 1, 2].map((g) => (
          <label key={g} className="check"><input type="radio" name="gender" checked={values.gender === g} onChange={() => setValues({ ...values, gender: g })} /> {t(`user.profile.gender${g}`)}</label>
        ))}
      </fieldset>
      <label className="field"><span>{t('user.profile.birthday')}</span>
        <input type="date" name="birthday" value={values.birthday} {...aria('birthday')} onChange={(e) => setValues({ ...values, birthday: e.target.value })} />{error('birthday')}</label>
      <label className="field"><span>{t('user.profile.timeZone')}</span>
        <select name="time_zone" value={values.time_zone} aria-describedby="time-zone-hint" {...aria('time_zone')} onChange={(e) => setValues({ ...values, time_zone: e.target.value })}>
          <option value="">{t('user.profile.timeZoneSite').replace('{zone}', siteTimeZone)}</option>
          {zones(values.time_zone).map((z) => <option key={z} value={z}>{z}</option>)}
        </select>
        <span className="muted small" id="time-zone-hint">{t('user.profile.timeZoneHint')}</span>{error('time_zone')}</label>
      <label className="field"><span>{t('user.profile.motto')}</span>
        <textarea name="motto" rows={3} maxLength={255} value={values.motto} onChange={(e) => setValues({ ...values, motto: e.target.value })} /></label>
      <button className="btn btn-primary" type="submit" disabled={busy}>{t('user.profile.save')}</button>
      <UploadQueue />
    </form>
  );
}
