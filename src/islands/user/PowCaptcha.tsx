// The captcha without pictures (WCAG 2.2 3.3.8): the device solves an ALTCHA proof-of-work
// challenge while the person waits; nothing to see, hear or click. Progress and the outcome are
// announced through a status region; a failure offers a button to try again.
import { useCallback, useEffect, useId, useRef, useState, type ReactElement } from 'react';
import type { Challenge } from 'altcha/lib';
import { ApiError, request } from '../../lib/client/api';
import { captchaMessage, type CaptchaKey } from './captcha-messages';

export interface PowCaptchaProps {
  locale: 'zh-cn' | 'en';
  /** Receives ALTCHA's payload, sent with the business call as `altcha`. */
  onVerified(payload: string): void;
  /** Moves focus to the panel when it appears (it replaced the control that had focus). */
  autoFocus?: boolean;
}

type Phase = 'working' | 'success' | 'failed';

/** How long the success message shows before handing over. */
const SUCCESS_DELAY = 500;

export function PowCaptcha({ locale, onVerified, autoFocus = false }: PowCaptchaProps): ReactElement {
  const t = (key: CaptchaKey): string => captchaMessage(locale, key);
  const [phase, setPhase] = useState<Phase>('working');
  const [error, setError] = useState('');
  const ids = { title: useId(), lead: useId() };
  const panel = useRef<HTMLDivElement>(null);
  const retry = useRef<HTMLButtonElement>(null);
  const verified = useRef(onVerified);
  useEffect(() => { verified.current = onVerified; }, [onVerified]);
  const run = useRef<AbortController | null>(null);

  const start = useCallback(async (): Promise<void> => {
    run.current?.abort();
    const mine = new AbortController();
    run.current = mine;
    setPhase('working');
    setError('');
    try {
      const [reply, { solvePow }] = await Promise.all([
        request<Challenge>('/api/common/altcha', { showErrorMessage: false }),
        import('../../lib/client/pow/solve'),
      ]);
      const payload = await solvePow(reply.data, mine.signal);
      if (mine.signal.aborted) return;
      if (!payload) throw new Error(t('captcha.pow.failed'));
      setPhase('success');
      setTimeout(() => { if (!mine.signal.aborted) verified.current(payload); }, SUCCESS_DELAY);
    } catch (err) {
      if (mine.signal.aborted) return;
      setPhase('failed');
      setError((err instanceof ApiError && err.message) || t('captcha.pow.failed'));
    }
  }, [locale]);

  useEffect(() => {
    void start();
    return () => run.current?.abort();
  }, [start]);

  useEffect(() => {
    if (autoFocus) panel.current?.focus();
  }, [autoFocus]);

  useEffect(() => {
    if (phase === 'failed') retry.current?.focus();
  }, [phase]);

  const status = phase === 'working' ? t('captcha.pow.working') : phase === 'success' ? t('captcha.success') : error;
  return (
    <div ref={panel} className="pow-captcha" role="group" tabIndex={-1} aria-labelledby={ids.title} aria-describedby={ids.lead}
      style={{ display: 'grid', gap: '.6rem', width: '100%', maxWidth: 350, margin: '0 auto', outline: 'none' }}>
      <strong id={ids.title}>{t('captcha.pow.title')}</strong>
      <p id={ids.lead} style={{ margin: 0 }}>{t('captcha.pow.lead')}</p>
      {phase === 'working' && <progress aria-label={t('captcha.pow.progress')} style={{ width: '100%' }} />}
      <div
        role="status"
        aria-live="polite"
        style={{ minHeight: '1.4em', fontSize: '.9rem', color: phase === 'failed' ? 'var(--danger)' : phase === 'success' ? 'var(--success)' : 'var(--muted)' }}
      >
        {phase === 'success' ? `✓ ${status}` : status}
      </div>
      {phase === 'failed' && (
        <div style={{ display: 'flex', justifyContent: 'flex-end' }}>
          <button ref={retry} type="button" className="btn" onClick={() => void start()}>{t('captcha.pow.retry')}</button>
        </div>
      )}
    </div>
  );
}

export default PowCaptcha;
