// Forms of the admin console, the setup page and the reset page, without a framework: a
// `form[data-api]` is sent as JSON to its API; field errors appear beside their fields
// (`[data-error-for=name]`), the reply's message in the form's `[role=status]`, and nothing typed is
// lost on failure. On success the page reloads (or goes to `data-then`), unless `data-then="stay"`.
import { ApiError, request } from './api';

function valueOf(form: HTMLFormElement): Record<string, unknown> {
  const data: Record<string, unknown> = {};
  for (const el of Array.from(form.elements) as HTMLInputElement[]) {
    if (!el.name || el.disabled || el.type === 'submit' || el.type === 'button') continue;
    const path = el.name.split('.');
    let value: unknown = el.type === 'checkbox' ? (el.checked ? (el.value === 'on' ? '1' : el.value) : el.dataset.off ?? '0') : el.value;
    if (el.type === 'checkbox' && el.dataset.list !== undefined) {
      // Several checkboxes with one name and data-list: the checked values, comma-joined.
      const prev = (data[el.name] as string | undefined) ?? '';
      if (el.checked) data[el.name] = prev ? `${prev},${el.value}` : el.value;
      else data[el.name] ??= '';
      continue;
    }
    if (el.type === 'radio' && !el.checked) continue;
    let target = data;
    for (const key of path.slice(0, -1)) target = (target[key] ??= {}) as Record<string, unknown>;
    if (el.dataset.type === 'number' && value !== '') value = Number(value);
    target[path.at(-1)!] = value;
  }
  return data;
}

function showErrors(form: HTMLFormElement, fields: Record<string, string>): void {
  for (const slot of form.querySelectorAll<HTMLElement>('[data-error-for]')) slot.textContent = '';
  for (const input of form.querySelectorAll('[aria-invalid]')) input.removeAttribute('aria-invalid');
  for (const [name, message] of Object.entries(fields)) {
    const slot = form.querySelector<HTMLElement>(`[data-error-for="${CSS.escape(name)}"]`) ?? form.querySelector<HTMLElement>('[data-error-for="_"]');
    if (slot) slot.textContent = slot.textContent ? `${slot.textContent} ${message}` : message;
    const input = form.querySelector<HTMLElement>(`[name="${CSS.escape(name)}"]`);
    input?.setAttribute('aria-invalid', 'true');
  }
  // The first wrong field in reading order, whatever order the server listed them in.
  form.querySelector<HTMLElement>('[aria-invalid="true"]')?.focus();
}

/**
 * What to ask before sending, if anything: `data-confirm` on the button pressed, on the form, or on
 * a chosen option (e.g. the administrators' group in the member's group select).
 */
function confirmationOf(form: HTMLFormElement, submitter: HTMLElement | null): string | null {
  const chosen = Array.from(form.querySelectorAll<HTMLOptionElement>('option[data-confirm]')).find((o) => o.selected);
  return submitter?.dataset.confirm || form.dataset.confirm || chosen?.dataset.confirm || null;
}

/**
 * Asks in the console's own dialog (layouts/Admin.astro: the page's language, a modal the keyboard
 * drives: focus starts on Cancel, Esc cancels, Tab stays inside); true when confirmed.
 */
function askConfirmation(question: string): Promise<boolean> {
  const dialog = document.querySelector<HTMLDialogElement>('dialog[data-admin-confirm]');
  if (!dialog) return Promise.resolve(window.confirm(question));
  dialog.querySelector<HTMLElement>('[data-confirm-text]')!.textContent = question;
  return new Promise((resolve) => {
    const finish = (ok: boolean): void => {
      dialog.removeEventListener('click', onClick);
      dialog.removeEventListener('cancel', onCancel);
      if (dialog.open) dialog.close();
      resolve(ok);
    };
    const onClick = (e: Event): void => {
      const answer = (e.target as Element).closest<HTMLButtonElement>('button[data-confirm-answer]')?.dataset.confirmAnswer;
      if (answer) finish(answer === 'ok');
    };
    const onCancel = (): void => finish(false);
    dialog.addEventListener('click', onClick);
    dialog.addEventListener('cancel', onCancel);
    dialog.showModal();
    dialog.querySelector<HTMLButtonElement>('button[data-confirm-answer="cancel"]')?.focus();
  });
}

async function onSubmit(event: SubmitEvent): Promise<void> {
  const form = (event.target as Element).closest<HTMLFormElement>('form[data-api]');
  if (!form) return;
  event.preventDefault();
  const question = confirmationOf(form, event.submitter as HTMLElement | null);
  if (question && !(await askConfirmation(question))) return;
  const status = form.querySelector<HTMLElement>('[role=status]');
  const buttons = form.querySelectorAll<HTMLButtonElement>('button');
  buttons.forEach((b) => { b.disabled = true; });
  form.setAttribute('aria-busy', 'true');
  showErrors(form, {});
  if (status) status.textContent = '';
  try {
    const data = valueOf(form);
    // The button pressed may carry the decision (e.g. approve / reject).
    const submitter = event.submitter as HTMLButtonElement | null;
    if (submitter?.name) data[submitter.name] = submitter.value;
    const reply = await request<{ url?: string } | null>(form.dataset.api!, { method: 'POST', data, showErrorMessage: false });
    if (status) status.textContent = reply.msg;
    const then = form.dataset.then;
    if (then === 'stay') {
      if (reply.data?.url && status) status.textContent = `${reply.msg} ${reply.data.url}`;
    } else {
      // The reply's message survives the reload in the page's flash line.
      if (reply.msg) sessionStorage.setItem(FLASH, reply.msg);
      if (then) location.assign(then);
      else location.reload();
    }
  } catch (err) {
    if (err instanceof ApiError) {
      const fields = (err.data as { fields?: Record<string, string> } | null)?.fields;
      if (fields) showErrors(form, fields);
      // The envelope's message is the first field error, already shown beside its field: say it once.
      if (status && !(fields && Object.values(fields).includes(err.message))) status.textContent = err.message;
    } else if (status) status.textContent = String(err);
  } finally {
    buttons.forEach((b) => { b.disabled = false; });
    form.removeAttribute('aria-busy');
  }
}

// Capture phase: ahead of the client router, which would otherwise navigate with the form's fields.
const FLASH = 'atrium-admin-flash';
const flash = sessionStorage.getItem(FLASH);
const flashLine = document.querySelector<HTMLElement>('[data-admin-flash]');
if (flash && flashLine) {
  sessionStorage.removeItem(FLASH);
  flashLine.textContent = flash;
  flashLine.hidden = false;
}

document.addEventListener('submit', (e) => void onSubmit(e), true);

// The rule picker (admin/RulePicker.astro): a rule unchecked takes its children with it, a rule
// checked brings its parents (a menu shows only under its directory), as BuildAdmin's tree does.
document.addEventListener('change', (e) => {
  const box = e.target as HTMLInputElement;
  if (box.type !== 'checkbox' || box.name !== 'rules' || !box.closest('.admin-tree')) return;
  const item = box.closest('li');
  if (!box.checked) {
    item?.querySelectorAll<HTMLInputElement>('input[name="rules"]').forEach((child) => { child.checked = false; });
    return;
  }
  for (let li = item?.parentElement?.closest('li'); li; li = li.parentElement?.closest('li')) {
    const parent = li.querySelector<HTMLInputElement>(':scope > label > input[name="rules"]');
    if (parent) parent.checked = true;
  }
});
