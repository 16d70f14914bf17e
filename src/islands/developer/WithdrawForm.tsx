// Asking for a payout of earnings: the amount (between the site's minimum and what is available)
// and where to pay it. The request waits for an operator.
import type { FormEvent, ReactElement } from 'react';
import { request } from '../../lib/client/api';
import { WithdrawInput } from '../../lib/shared/validation/studio';
import { translate, useForm, zodFields, type Messages } from '../user/form-helpers';
import ErrorSummary from '../user/ErrorSummary';

interface Props {
  messages: Messages;
  /** Yuan strings. */
  available: string;
  min: string;
}

export default function WithdrawForm({ messages, available, min }: Props): ReactElement {
  const t = (k: string, values?: Record<string, string | number>): string => translate(messages, k, values);
  const { values, setValues, errors, setErrors, busy, formRef, run } = useForm({ amount: available, account: '' });

  const submit = (event: FormEvent): void => {
    event.preventDefault();
    const parsed = WithdrawInput.safeParse(values);
    if (!parsed.success) { setErrors(zodFields(parsed.error, messages)); return; }
    setErrors({});
    void run(async () => {
      await request('/api/developer/withdraw', { method: 'POST', data: values, showSuccessMessage: true });
      location.reload();
    });
  };

  const field = (name: keyof typeof values, label: string, hint: string, extra: Record<string, string> = {}): ReactElement => (
    <div className="field">
      <label htmlFor={`withdraw-${name}`}>{label}</label>
      <input type="text" id={`withdraw-${name}`} name={name} value={values[name]} {...extra}
        aria-invalid={errors[name] ? true : undefined} aria-describedby={errors[name] ? `withdraw-${name}-error` : `withdraw-${name}-hint`}
        onChange={(e) => setValues((v) => ({ ...v, [name]: e.target.value }))} />
      <p className="small muted" id={`withdraw-${name}-hint`}>{hint}</p>
      {errors[name] && <p className="field-error" role="alert" id={`withdraw-${name}-error`}>{errors[name]}</p>}
    </div>
  );

  return (
    <form method="post" ref={formRef} className="card form-narrow" onSubmit={submit} noValidate>
      <ErrorSummary errors={errors} formRef={formRef} messages={messages} />
      <h2>{t('devstudio.withdraw.title')}</h2>
      {field('amount', t('devstudio.withdraw.amount'), t('devstudio.withdraw.amountHint', { min, available }), { inputMode: 'decimal' })}
      {field('account', t('devstudio.withdraw.account'), t('devstudio.withdraw.accountHint'), { maxLength: '120', autoComplete: 'off' })}
      <button className="btn btn-primary" type="submit" disabled={busy}>{t('devstudio.withdraw.submit')}</button>
    </form>
  );
}
