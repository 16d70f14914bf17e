// The developer application: real name, ID number, mobile, e-mail, province and city, introduction.
import type { FormEvent, ReactElement } from 'react';
import { request } from '../../lib/client/api';
import { DeveloperApplyInput } from '../../lib/shared/validation/developer';
import AreaSelect from '../area/AreaSelect';
import { translate, useForm, zodFields, type Messages } from '../user/form-helpers';
import ErrorSummary from '../user/ErrorSummary';

export interface VerifValues {
  real_name: string;
  id_number: string;
  mobile: string;
  email: string;
  province: string;
  city: string;
  intro: string;
}

/** The words the area pickers need (the `area` dictionary). */
export interface AreaLabels {
  province: string;
  city: string;
  district: string;
  choose: string;
  loading: string;
  failed: string;
}

interface Props {
  messages: Messages;
  /** The `area` dictionary's words for the province and city pickers. */
  areaLabels: AreaLabels;
  initial: VerifValues;
  /** The submit button's message key: first application, correction or new attempt. */
  submitKey: string;
}

export default function VerifForm({ messages, areaLabels, initial, submitKey }: Props): ReactElement {
  const t = (k: string): string => translate(messages, k);
  const { values, setValues, errors, setErrors, busy, formRef, run } = useForm(initial);

  const submit = async (e: FormEvent): Promise<void> => {
    e.preventDefault();
    const parsed = DeveloperApplyInput.safeParse(values);
    if (!parsed.success) return setErrors(zodFields(parsed.error, messages));
    setErrors({});
    await run(async () => {
      await request('/api/developer/verif', { data: values, showSuccessMessage: true });
      location.reload();
    });
  };

  const error = (name: string): ReactElement | null => (errors[name] ? <span className="field-error" role="alert" id={`err-${name}`}>{errors[name]}</span> : null);
  const aria = (name: string) => (errors[name] ? { 'aria-invalid': true, 'aria-describedby': `err-${name}` } : {});
  const input = (name: 'real_name' | 'id_number' | 'mobile' | 'email', label: string, extra: Record<string, string | number> = {}): ReactElement => (
    <label className="field"><span>{label}</span>
      <input type="text" name={name} value={values[name]} required {...extra} {...aria(name)} onChange={(e) => setValues({ ...values, [name]: e.target.value })} />
      {error(name)}
    </label>
  );

  return (
    <form method="post" ref={formRef} className="card form-narrow" onSubmit={(e) => void submit(e)} noValidate>
      <ErrorSummary errors={errors} formRef={formRef} messages={messages} />
      {input('real_name', t('developer.form.realName'), { autoComplete: 'name', maxLength: 30 })}
      {input('id_number', t('developer.form.idNumber'), { maxLength: 18, autoComplete: 'off', spellCheck: 'false', placeholder: t('developer.form.idNumberHint') })}
      {input('mobile', t('developer.form.mobile'), { type: 'tel', inputMode: 'numeric', maxLength: 11, autoComplete: 'tel-national' })}
      {input('email', t('developer.form.email'), { type: 'email', autoComplete: 'email', maxLength: 100 })}
      <fieldset className="field">
        <legend>{t('developer.form.area')}</legend>
        <AreaSelect levels={2} required labels={areaLabels} disabled={busy} names={{ province: 'province', city: 'city' }}
          value={{ province: values.province || undefined, city: values.city || undefined }}
          onChange={(v) => setValues((current) => ({ ...current, province: v.province ?? '', city: v.city ?? '' }))} />
        {error('province')}{error('city')}
      </fieldset>
      <label className="field"><span>{t('developer.form.intro')}</span>
        <textarea name="intro" rows={5} maxLength={1000} required value={values.intro} placeholder={t('developer.form.introHint')} {...aria('intro')}
          onChange={(e) => setValues({ ...values, intro: e.target.value })} />
        {error('intro')}
      </label>
      <button className="btn btn-primary" type="submit" disabled={busy}>{t(submitKey)}</button>
    </form>
  );
}
