// Remote pickers (spec §7's select search): an `input[data-select-source]` is offered, as a
// datalist, the labels `GET <source>?select=true&quickSearch=<typed>` answers, ten at a time. What is
// typed stays free text: the server checks it as it always did.
import { request } from './api';

const timers = new WeakMap<HTMLInputElement, ReturnType<typeof setTimeout>>();
let serial = 0;

async function suggest(input: HTMLInputElement): Promise<void> {
  let list = input.list;
  if (!list) {
    list = document.createElement('datalist');
    list.id = `select-search-${++serial}`;
    input.after(list);
    input.setAttribute('list', list.id);
  }
  const typed = input.value.trim();
  try {
    const reply = await request<{ list: { id: number | string; label: string }[]; total: number }>(input.dataset.selectSource!, {
      params: { select: 'true', quickSearch: typed, limit: 10 }, showErrorMessage: false,
    });
    if (input.value.trim() !== typed) return;
    list.replaceChildren(...(reply.data?.list ?? []).map((item) => Object.assign(document.createElement('option'), { value: item.label })));
  } catch {
    // No suggestions: the field still takes what is typed.
  }
}

document.addEventListener('input', (e) => {
  const input = e.target as HTMLInputElement;
  if (!(input instanceof HTMLInputElement) || !input.dataset.selectSource) return;
  clearTimeout(timers.get(input));
  timers.set(input, setTimeout(() => void suggest(input), 200));
});
