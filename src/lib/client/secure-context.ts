// What the browser offers only in a secure context (HTTPS or localhost), done without one: a site
// served over plain HTTP on a LAN address must sign up, log in and copy code like any other.

/**
 * A random version-4 UUID. `crypto.randomUUID` is missing outside secure contexts;
 * `crypto.getRandomValues` exists everywhere.
 */
export function randomUuid(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  bytes[6] = (bytes[6]! & 0x0f) | 0x40;
  bytes[8] = (bytes[8]! & 0x3f) | 0x80;
  const hex = Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/**
 * Puts text on the clipboard: the Clipboard API where there is one (secure contexts), else a
 * selected hidden textarea and the copy command. Resolves false when neither worked.
 */
export async function copyText(text: string): Promise<boolean> {
  if (navigator.clipboard?.writeText) {
    try {
      await navigator.clipboard.writeText(text);
      return true;
    } catch { /* denied: try the copy command */ }
  }
  const area = document.createElement('textarea');
  area.value = text;
  area.setAttribute('readonly', '');
  area.style.cssText = 'position:fixed;top:0;left:0;width:1px;height:1px;opacity:0';
  const focused = document.activeElement instanceof HTMLElement ? document.activeElement : null;
  document.body.append(area);
  area.select();
  let done = false;
  try {
    done = document.execCommand('copy');
  } catch { /* not supported */ }
  area.remove();
  focused?.focus();
  return done;
}
