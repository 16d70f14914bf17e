// `client:interact`: hydrates an island on the first pointer press, focus, key press or touch
// inside it, so a reader who only reads never downloads its framework code. Registered in
// astro.config.mjs; typed in src/env.d.ts.
import type { ClientDirective } from 'astro';

const EVENTS = ['pointerdown', 'focusin', 'keydown', 'touchstart'] as const;

const interact: ClientDirective = (load, _options, el) => {
  let started = false;
  const start = (): void => {
    if (started) return;
    started = true;
    for (const type of EVENTS) el.removeEventListener(type, start, true);
    void load().then((hydrate) => hydrate());
  };
  // Focus already inside (autofocus, a restored focus after back/forward): the visitor is here.
  if (el.contains(document.activeElement)) return start();
  for (const type of EVENTS) el.addEventListener(type, start, { capture: true, passive: true });
};

export default interact;
