// The docs reader without a framework: copy buttons on code blocks, the table of contents
// following the scroll, and the sidebar toggle on narrow screens. Clicks are delegated on the
// document (set once); what depends on the page's elements is set up again on every
// `astro:page-load`, because the in-app router swaps the body without running this module again.
import { copyText } from './secure-context';

let observer: IntersectionObserver | null = null;

/** Wraps every code block once, so its copy button stays put while the code scrolls sideways. */
function addCopyButtons(): void {
  for (const body of document.querySelectorAll<HTMLElement>('.markdown-body[data-copy]')) {
    for (const pre of body.querySelectorAll('pre')) {
      if (pre.parentElement?.classList.contains('code-block')) continue;
      const box = document.createElement('div');
      box.className = 'code-block';
      const button = document.createElement('button');
      button.type = 'button';
      button.className = 'copy-btn';
      button.dataset.action = 'copy-code';
      button.textContent = body.dataset.copy ?? '';
      pre.replaceWith(box);
      box.append(pre, button);
    }
  }
}

async function copyCode(button: HTMLButtonElement): Promise<void> {
  const pre = button.parentElement?.querySelector('pre');
  const labels = button.closest<HTMLElement>('.markdown-body')?.dataset;
  if (!pre || !labels) return;
  // Refused (denied permission, no copy command): the code can still be selected.
  if (!(await copyText((pre.querySelector('code') ?? pre).textContent ?? ''))) return;
  button.textContent = labels.copied ?? '';
  setTimeout(() => { button.textContent = labels.copy ?? ''; }, 1800);
}

const BAND_TOP = 72;

/**
 * Marks the TOC link of the section being read: the first heading in the upper band of the
 * window, or else the last heading above it (the reader is inside that heading's section).
 */
function followToc(): void {
  observer?.disconnect();
  observer = null;
  const links = new Map<string, HTMLAnchorElement>();
  for (const a of document.querySelectorAll<HTMLAnchorElement>('.toc a[href^="#"]')) links.set(decodeURIComponent(a.hash.slice(1)), a);
  const headings = [...links.keys()].map((id) => document.getElementById(id)).filter((h): h is HTMLElement => h !== null);
  if (!headings.length || !('IntersectionObserver' in window)) return;
  const visible = new Set<HTMLElement>();
  const above = (): HTMLElement | undefined => headings.filter((h) => h.getBoundingClientRect().top < BAND_TOP).at(-1);
  observer = new IntersectionObserver((entries) => {
    for (const entry of entries) {
      if (entry.isIntersecting) visible.add(entry.target as HTMLElement);
      else visible.delete(entry.target as HTMLElement);
    }
    const current = headings.find((h) => visible.has(h)) ?? above();
    for (const [id, a] of links) {
      if (id === current?.id) a.setAttribute('aria-current', 'true');
      else a.removeAttribute('aria-current');
    }
  }, { rootMargin: `-${BAND_TOP}px 0px -66% 0px` });
  for (const h of headings) observer.observe(h);
}

/** Brings the current page into view in a long sidebar, without moving the window. */
function revealCurrent(): void {
  const sidebar = document.getElementById('doc-sidebar');
  const current = sidebar?.querySelector<HTMLElement>('[aria-current="page"]');
  if (!sidebar || !current || sidebar.scrollHeight <= sidebar.clientHeight) return;
  const top = current.getBoundingClientRect().top - sidebar.getBoundingClientRect().top;
  if (top < 0 || top > sidebar.clientHeight - 40) sidebar.scrollTop += top - sidebar.clientHeight / 3;
}

function toggleSidebar(button: HTMLElement, open = button.getAttribute('aria-expanded') !== 'true'): void {
  button.setAttribute('aria-expanded', String(open));
  document.getElementById(button.getAttribute('aria-controls') ?? '')?.toggleAttribute('data-open', open);
}

function setup(): void {
  addCopyButtons();
  followToc();
  revealCurrent();
}

document.addEventListener('click', (event) => {
  const target = (event.target as Element | null)?.closest<HTMLButtonElement>('[data-action="copy-code"], [data-action="doc-menu"]');
  if (target?.dataset.action === 'copy-code') void copyCode(target);
  else if (target) toggleSidebar(target);
});
document.addEventListener('keydown', (event) => {
  const button = document.querySelector<HTMLElement>('[data-action="doc-menu"][aria-expanded="true"]');
  if (event.key !== 'Escape' || !button) return;
  toggleSidebar(button, false);
  button.focus();
});
document.addEventListener('astro:page-load', setup);
// The module may load after the first `astro:page-load` has fired; setting up twice is harmless.
if (document.readyState !== 'loading') setup();
