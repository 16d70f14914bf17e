// Requesting an invoice: amount (up to what is invoiceable), title, tax id, e-mail.
import type { FormEvent, ReactElement } from 'react';
import { request } from '../../lib/client/api';
import { InvoiceInput } from '../../lib/shared/validation/account';
import { translate, useForm, zodFields, type Messages } from './form-helpers';
import ErrorSummary from './ErrorSummary';

/** `orderId`/`orderNo`: the request is for one module order (from the order list); its amount is prefilled. */
export default function InvoiceForm({ messages, available, email, orderId = 0, orderNo = '' }: { messages: Messages; available: string; email: string; orderId?: number; orderNo?: string }): ReactElement {
  const t = (k: string): string => translate(messages, k);
  const { values, setValues, errors, setErrors, busy, formRef, run } = useForm({ amount: available, title: '', tax_id: '', email });

  const submit = async (e: FormEvent): Promise<void> => {
    e.preventDefault();
    const body = { ...values, tax_id: values.tax_id.toUpperCase(), ...(orderId ? { order_id: orderId } : {}) };
    const parsed = InvoiceInput.safeParse(body);
    if (!parsed.success) return setErrors(zodFields(parsed.error, messages));
    setErrors({});
    await run(async () => {
      await request('/api/account/invoice', { data: body, showSuccessMessage: true });
      location.reload();
    });
  };

  const field = (name: keyof typeof values, label: string, type = 'text'): ReactElement => (
    <label className="field">
      <span>{label}</span>
      <input name={name} type={type} value={values[name]} aria-invalid={errors[name] ? true : undefined} aria-describedby={errors[name] ? `err-${name}` : undefined}
        onChange={(e) => setValues({ ...values, [name]: e.target.value })} />
      {errors[name] && <span className="field-error" role="alert" id={`err-${name}`}>{errors[name]}</span>}
    </label>
  );

  return (
    <form method="post" ref={formRef} className="card form-narrow" onSubmit={(e) => void submit(e)} noValidate>
      <ErrorSummary errors={errors} formRef={formRef} messages={messages} />
      {orderNo && <p className="muted">{translate(messages, 'user.invoice.forOrder', { no: orderNo })}</p>}
      {field('amount', t('user.invoice.amount'))}
      {field('title', t('user.invoice.title'))}
      {field('tax_id', t('user.invoice.taxId'))}
      {field('email', t('user.invoice.email'), 'email')}
      <button className="btn btn-primary" type="submit" disabled={busy}>{t('user.invoice.submit')}</button>
    </form>
  );
}
