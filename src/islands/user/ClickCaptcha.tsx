// The click captcha (spec §5): click the named icons in order. Mouse, pen and touch go through
// pointer events; the keyboard moves a crosshair over the picture. After the last click the answer
// is pre-checked with `unset: false`, so the business call that follows can still consume it.
import { useCallback, useEffect, useId, useRef, useState, type CSSProperties, type KeyboardEvent, type PointerEvent, type ReactElement } from 'react';
import { ApiError, request } from '../../lib/client/api';
import { captchaMessage, type CaptchaKey } from './captcha-messages';

export interface ClickCaptchaProps {
  locale: 'zh-cn' | 'en';
  /** Chosen by the caller and sent again with the business call (`captchaId`). */
  captchaId: string;
  /** Receives `captchaInfo` once the pre-check passed. */
  onVerified(info: string): void;
  onCancel?(): void;
}

interface Drawn {
  id: string;
  text: string[];
  base64: string;
  width: number;
  height: number;
}

interface Point { x: number; y: number }

type Phase = 'loading' | 'ready' | 'checking' | 'success' | 'failed' | 'loadFailed';

/** A tap that moved further than this is a scroll or a drag, not a click. */
const TAP_SLOP = 10;
const STEP = 5;
const BIG_STEP = 20;
/** How long the success mark shows before handing over, and the failure before a new picture. */
const SUCCESS_DELAY = 500;
const RETRY_DELAY = 1200;

const overlay: CSSProperties = { position: 'absolute', inset: 0, display: 'grid', placeItems: 'center', padding: '1rem', textAlign: 'center', background: 'rgb(0 0 0 / 0.45)', color: '#fff', fontSize: '.9rem' };

/** `x1,y1-x2,y2;w;h` with the clicks in picture pixels, so the rendered size is the picture's own. */
function infoOf(clicks: readonly Point[], width: number, height: number): string {
  return `${clicks.map((p) => `${Math.round(p.x)},${Math.round(p.y)}`).join('-')};${width};${height}`;
}

export function ClickCaptcha({ locale, captchaId, onVerified, onCancel }: ClickCaptchaProps): ReactElement {
  const t = (key: CaptchaKey, values?: Record<string, string | number>): string => captchaMessage(locale, key, values);
  const [drawn, setDrawn] = useState<Drawn | null>(null);
  const [phase, setPhaseState] = useState<Phase>('loading');
  const [clicks, setClicksState] = useState<Point[]>([]);
  // Mirrors of the two states above for event handlers: two taps in quick succession must both
  // count, and a tap arriving while a check runs must not, whatever render the handler came from.
  const phaseNow = useRef<Phase>('loading');
  const clicksNow = useRef<Point[]>([]);
  const setPhase = (next: Phase): void => { phaseNow.current = next; setPhaseState(next); };
  const setClicks = (next: Point[]): void => { clicksNow.current = next; setClicksState(next); };
  const [message, setMessage] = useState<{ type: 'success' | 'error'; text: string } | null>(null);
  const [cursor, setCursor] = useState<Point | null>(null);
  const [keyboard, setKeyboard] = useState(false);
  const stage = useRef<HTMLDivElement>(null);
  const press = useRef<{ id: number; x: number; y: number } | null>(null);
  // Replies to an older load or check are dropped: a new picture may have been asked for meanwhile.
  const generation = useRef(0);
  const timers = useRef<ReturnType<typeof setTimeout>[]>([]);
  // The hand-over runs from a timer: it must call the callback of the latest render.
  const verified = useRef(onVerified);
  useEffect(() => { verified.current = onVerified; }, [onVerified]);
  const ids = { prompt: useId(), hint: useId() };

  const clearTimers = (): void => {
    for (const timer of timers.current) clearTimeout(timer);
    timers.current = [];
  };

  const load = useCallback(async (): Promise<void> => {
    clearTimers();
    const mine = ++generation.current;
    setPhase('loading');
    setClicks([]);
    try {
      const reply = await request<Drawn>('/api/common/clickCaptcha', { params: { id: captchaId }, showErrorMessage: false });
      if (mine !== generation.current) return;
      setDrawn(reply.data);
      setCursor({ x: reply.data.width / 2, y: reply.data.height / 2 });
      setPhase('ready');
    } catch {
      if (mine !== generation.current) return;
      setDrawn(null);
      setPhase('loadFailed');
    }
  }, [captchaId]);

  useEffect(() => {
    void load();
    return () => {
      generation.current++;
      clearTimers();
    };
  }, [load]);

  const verify = async (answer: Point[], picture: Drawn): Promise<void> => {
    const mine = generation.current;
    const info = infoOf(answer, picture.width, picture.height);
    setPhase('checking');
    try {
      const reply = await request('/api/common/checkClickCaptcha', { method: 'POST', data: { id: captchaId, info, unset: false }, showErrorMessage: false });
      if (mine !== generation.current) return;
      setPhase('success');
      setMessage({ type: 'success', text: reply.msg || t('captcha.success') });
      timers.current.push(setTimeout(() => verified.current(info), SUCCESS_DELAY));
    } catch (err) {
      if (mine !== generation.current) return;
      setPhase('failed');
      setMessage({ type: 'error', text: (err instanceof ApiError && err.message) || t('captcha.failed') });
      // A wrong answer counts against this picture: start over with a new one.
      timers.current.push(setTimeout(() => void load(), RETRY_DELAY));
    }
  };

  const addClick = (point: Point): void => {
    const current = clicksNow.current;
    if (phaseNow.current !== 'ready' || !drawn || current.length >= drawn.text.length) return;
    const next = [...current, { x: Math.min(Math.max(point.x, 0), drawn.width), y: Math.min(Math.max(point.y, 0), drawn.height) }];
    setClicks(next);
    setMessage(null);
    if (next.length === drawn.text.length) void verify(next, drawn);
  };

  const undo = (): void => {
    if (phaseNow.current !== 'ready') return;
    setClicks(clicksNow.current.slice(0, -1));
  };

  const onPointerDown = (e: PointerEvent<HTMLDivElement>): void => {
    if (e.button !== 0) return;
    press.current = { id: e.pointerId, x: e.clientX, y: e.clientY };
    setKeyboard(false);
  };

  const onPointerUp = (e: PointerEvent<HTMLDivElement>): void => {
    const start = press.current;
    press.current = null;
    if (!start || start.id !== e.pointerId || !drawn || !stage.current) return;
    if (Math.hypot(e.clientX - start.x, e.clientY - start.y) > TAP_SLOP) return;
    const rect = stage.current.getBoundingClientRect();
    if (rect.width === 0 || rect.height === 0) return;
    addClick({ x: ((e.clientX - rect.left) / rect.width) * drawn.width, y: ((e.clientY - rect.top) / rect.height) * drawn.height });
  };

  const onKeyDown = (e: KeyboardEvent<HTMLDivElement>): void => {
    if (e.key === 'Escape' && onCancel) {
      e.preventDefault();
      onCancel();
      return;
    }
    if (!drawn || !cursor) return;
    const step = e.shiftKey ? BIG_STEP : STEP;
    const move: Record<string, [number, number]> = { ArrowLeft: [-step, 0], ArrowRight: [step, 0], ArrowUp: [0, -step], ArrowDown: [0, step] };
    const delta = move[e.key];
    if (delta) {
      e.preventDefault();
      setKeyboard(true);
      setCursor({ x: Math.min(Math.max(cursor.x + delta[0], 0), drawn.width - 1), y: Math.min(Math.max(cursor.y + delta[1], 0), drawn.height - 1) });
    } else if (e.key === 'Enter' || e.key === ' ') {
      e.preventDefault();
      setKeyboard(true);
      addClick(cursor);
    } else if (e.key === 'Backspace' || e.key === 'Delete') {
      e.preventDefault();
      undo();
    }
  };

  const names = (drawn?.text ?? []).map((name) => name.replace(/^<(.+)>$/, '$1'));
  const width = drawn?.width ?? 350;
  const height = drawn?.height ?? 200;
  const pct = (p: Point): CSSProperties => ({ left: `${(p.x / width) * 100}%`, top: `${(p.y / height) * 100}%` });
  const busy = phase === 'loading' || phase === 'checking';
  let status = '';
  if (phase === 'loading') status = t('captcha.loading');
  else if (phase === 'loadFailed') status = t('captcha.loadFailed');
  else if (message) status = message.text;
  else if (drawn && clicks.length > 0) status = t('captcha.progress', { count: clicks.length, total: drawn.text.length });

  return (
    <div className="click-captcha" style={{ display: 'grid', gap: '.6rem', width: '100%', maxWidth: 350, margin: '0 auto' }}>
      <div style={{ display: 'flex', alignItems: 'center', justifyContent: 'space-between', gap: '.5rem' }}>
        <strong>{t('captcha.title')}</strong>
        {onCancel && (
          <button type="button" className="btn icon-btn" aria-label={t('captcha.cancel')} title={t('captcha.cancel')} onClick={onCancel}>×</button>
        )}
      </div>
      <p id={ids.prompt} style={{ margin: 0 }}>
        {t('captcha.prompt')}{' '}
        {names.map((name, i) => (
          <span key={i}>
            {i > 0 && t('captcha.listSeparator')}
            <strong style={{ color: 'var(--accent)' }}>{name}</strong>
          </span>
        ))}
      </p>
      <div
        ref={stage}
        role="application"
        tabIndex={0}
        aria-labelledby={ids.prompt}
        aria-describedby={ids.hint}
        aria-busy={busy}
        onPointerDown={onPointerDown}
        onPointerUp={onPointerUp}
        onPointerCancel={() => { press.current = null; }}
        onKeyDown={onKeyDown}
        onFocus={(e) => {
          // Only focus that came from the keyboard shows the crosshair at once.
          try { setKeyboard(e.currentTarget.matches(':focus-visible')); } catch { setKeyboard(false); }
        }}
        onBlur={() => setKeyboard(false)}
        style={{
          position: 'relative', width: '100%', aspectRatio: `${width} / ${height}`, overflow: 'hidden', borderRadius: 6,
          border: '1px solid var(--border)', background: 'var(--bg)', cursor: phase === 'ready' ? 'crosshair' : 'default',
          touchAction: 'manipulation', userSelect: 'none', WebkitUserSelect: 'none',
          outline: keyboard ? '2px solid var(--accent)' : 'none', outlineOffset: 2,
        }}
      >
        {drawn && (
          <img
            src={drawn.base64}
            alt={t('captcha.imageAlt')}
            width={drawn.width}
            height={drawn.height}
            draggable={false}
            onError={() => { setDrawn(null); setPhase('loadFailed'); }}
            style={{ display: 'block', width: '100%', height: '100%', pointerEvents: 'none' }}
          />
        )}
        {clicks.map((p, i) => (
          <span
            key={i}
            aria-hidden="true"
            style={{
              ...pct(p), position: 'absolute', transform: 'translate(-50%, -50%)', width: 22, height: 22, borderRadius: '50%',
              display: 'grid', placeItems: 'center', background: 'var(--accent)', color: 'var(--accent-contrast)',
              border: '2px solid #fff', boxShadow: '0 1px 4px rgb(0 0 0 / 0.4)', fontSize: 12, fontWeight: 700, lineHeight: 1, pointerEvents: 'none',
            }}
          >
            {i + 1}
          </span>
        ))}
        {keyboard && cursor && phase === 'ready' && (
          <span aria-hidden="true" style={{ ...pct(cursor), position: 'absolute', width: 0, height: 0, pointerEvents: 'none' }}>
            <span style={{ position: 'absolute', left: -12, top: -12, width: 24, height: 24, borderRadius: '50%', border: '2px solid #fff', boxShadow: '0 0 0 2px #111' }} />
            <span style={{ position: 'absolute', left: -16, top: -1, width: 32, height: 2, background: '#111' }} />
            <span style={{ position: 'absolute', left: -1, top: -16, width: 2, height: 32, background: '#111' }} />
          </span>
        )}
        {phase === 'loading' && <div style={overlay} aria-hidden="true">{t('captcha.loading')}</div>}
        {phase === 'loadFailed' && <div style={overlay} aria-hidden="true">{t('captcha.loadFailed')}</div>}
        {phase === 'success' && (
          <div style={{ ...overlay, background: 'rgb(26 127 55 / 0.55)', fontSize: '1.05rem', fontWeight: 700 }} aria-hidden="true">✓ {message?.text}</div>
        )}
      </div>
      <div
        role="status"
        aria-live="polite"
        style={{
          minHeight: '1.4em', fontSize: '.9rem',
          color: phase === 'loadFailed' || message?.type === 'error' ? 'var(--danger)' : message?.type === 'success' ? 'var(--success)' : 'var(--muted)',
        }}
      >
        {status}
      </div>
      <div style={{ display: 'flex', gap: '.5rem', justifyContent: 'flex-end' }}>
        <button type="button" className="btn" onClick={undo} disabled={phase !== 'ready' || clicks.length === 0}>{t('captcha.undo')}</button>
        <button type="button" className="btn" onClick={() => { setMessage(null); void load(); }} disabled={busy || phase === 'success'}>{t('captcha.refresh')}</button>
      </div>
      {/* Always shown, and last: text that came and went with focus would move the buttons under the pointer. */}
      <p id={ids.hint} className="muted" style={{ margin: 0, fontSize: '.75rem' }}>{t('captcha.keyboardHint')}</p>
    </div>
  );
}

export default ClickCaptcha;
