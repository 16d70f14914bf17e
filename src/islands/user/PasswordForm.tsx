// Change password: the other sessions end on the server; this one stays.
import type { FormEvent, ReactElement } from 'react';
import { request } from '../../lib/client/api';
import { ChangePasswordInput } from '../../lib/shared/validation/account';
import { translate, useForm, zodFields, type Fields, type Messages } from './form-helpers';
import ErrorSummary from './ErrorSummary';

export default function PasswordForm({ messages }: { messages: Messages }): ReactElement {
  const t = (k: string): string => translate(messages, k);
  const { values, setValues, errors, setErrors, busy, formRef, run } = useForm({ oldPassword: '', newPassword: '', confirm: '' });

  const submit = async (e: FormEvent): Promise<void> => {
    e.preventDefault();
    const { confirm, ...body } = values;
    const parsed = ChangePasswordInput.safeParse(body);
    const fields: Fields = parsed.success ? {} : zodFields(parsed.error, messages);
    if (confirm !== values.newPassword) fields.confirm = t('validation.passwordMismatch');
    if (values.oldPassword && values.oldPassword === values.newPassword) fields.newPassword = t('validation.samePassword');
    setErrors(fields);
    if (Object.keys(fields).length) return;
    await run(async () => {
      await request('/api/account/changePassword', { data: body, showSuccessMessage: true });
      setValues({ oldPassword: '', newPassword: '', confirm: '' });
    });
  };

  const input = (name: keyof typeof values, label: string, autoComplete: string): ReactElement => (
    <label className="field">
      <span>{label}</span>
      <input type="password" name={name} autoComplete={autoComplete} value={values[name]}
        aria-invalid={errors[name] ? true : undefined} aria-describedby={errors[name] ? `err-${name}` : undefined}
        onChange={(e) => setValues({ ...values, [name]: e.target.value })} />
      {errors[name] && <span className="field-error" role="alert" id={`err-${name}`}>{errors[name]}</span>}
    </label>
  );

  return (
    <form method="post" ref={formRef} className="card form-narrow" onSubmit={(e) => void submit(e)} noValidate>
      <ErrorSummary errors={errors} formRef={formRef} messages={messages} />
      {input('oldPassword', t('user.password.old'), 'current-password')}
      {input('newPassword', t('user.password.new'), 'new-password')}
      {input('confirm', t('user.password.confirm'), 'new-password')}
      <button className="btn btn-primary" type="submit" disabled={busy}>{t('user.password.submit')}</button>
    </form>
  );
}
