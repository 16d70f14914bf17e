// The rule editor's order (components/admin/RulesEditor.astro): a row dragged within its level, or
// moved with its Move up / Move down buttons (the keyboard's way: focus stays on the button pressed),
// and the level's new order sent to /api/admin/ruleSort. The reply's message is announced in the
// editor's status line; on failure the page reloads to show the order the server kept.
import { ApiError, request } from './api';

const rowsOf = (list: HTMLElement): HTMLLIElement[] => Array.from(list.children).filter((c): c is HTMLLIElement => c instanceof HTMLLIElement);

function refreshButtons(list: HTMLElement): void {
  const rows = rowsOf(list);
  rows.forEach((li, i) => {
    const up = li.querySelector<HTMLButtonElement>(':scope > .admin-rule-row [data-rule-move="up"]');
    const down = li.querySelector<HTMLButtonElement>(':scope > .admin-rule-row [data-rule-move="down"]');
    if (up) up.disabled = i === 0;
    if (down) down.disabled = i === rows.length - 1;
  });
}

async function saveOrder(list: HTMLElement): Promise<void> {
  const status = list.closest('[data-rule-editor]')?.querySelector<HTMLElement>('[data-rule-sort-status]');
  refreshButtons(list);
  try {
    const reply = await request('/api/admin/ruleSort', {
      method: 'POST',
      data: { pid: Number(list.dataset.rulePid), ids: rowsOf(list).map((li) => li.dataset.ruleId).join(',') },
      showErrorMessage: false,
    });
    if (status) status.textContent = reply.msg;
  } catch (err) {
    if (status) status.textContent = err instanceof ApiError ? err.message : String(err);
    setTimeout(() => location.reload(), 1500);
  }
}

document.addEventListener('click', (e) => {
  const button = (e.target as Element).closest<HTMLButtonElement>('[data-rule-move]');
  if (!button) return;
  const li = button.closest('li');
  const list = li?.parentElement;
  if (!li || !list) return;
  const sibling = button.dataset.ruleMove === 'up' ? li.previousElementSibling : li.nextElementSibling;
  if (!sibling) return;
  if (button.dataset.ruleMove === 'up') sibling.before(li);
  else sibling.after(li);
  // Moving a node drops focus in some browsers: keep it on the button, unless it just got disabled.
  refreshButtons(list);
  (button.disabled ? li.querySelector<HTMLButtonElement>(`[data-rule-move="${button.dataset.ruleMove === 'up' ? 'down' : 'up'}"]`) : button)?.focus();
  void saveOrder(list);
});

let dragged: HTMLLIElement | null = null;
document.addEventListener('dragstart', (e) => {
  const row = (e.target as Element).closest?.('.admin-rule-row');
  dragged = row?.parentElement instanceof HTMLLIElement ? row.parentElement : null;
  if (dragged && e.dataTransfer) {
    e.dataTransfer.effectAllowed = 'move';
    e.dataTransfer.setData('text/plain', dragged.dataset.ruleId ?? '');
  }
});
document.addEventListener('dragover', (e) => {
  const target = (e.target as Element).closest?.('li[data-rule-id]');
  // Within the dragged row's own level only: moving to another parent is the edit form's Parent.
  if (dragged && target && target !== dragged && target.parentElement === dragged.parentElement) e.preventDefault();
});
document.addEventListener('drop', (e) => {
  const target = (e.target as Element).closest?.('li[data-rule-id]');
  if (!dragged || !target || target === dragged || target.parentElement !== dragged.parentElement) return;
  e.preventDefault();
  const list = dragged.parentElement!;
  const rect = target.getBoundingClientRect();
  if (e.clientY < rect.top + rect.height / 2) target.before(dragged);
  else target.after(dragged);
  dragged = null;
  void saveOrder(list);
});
document.addEventListener('dragend', () => { dragged = null; });
