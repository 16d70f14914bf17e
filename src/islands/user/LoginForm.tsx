// The login and sign-up form of /user/login. Validation uses the same schemas as the API, so both
// say the same thing; field errors from the server appear beside their fields.
import { useEffect, useRef, useState, type FormEvent, type KeyboardEvent, type ReactElement } from 'react';
import { request } from '../../lib/client/api';
import { rememberUser } from '../../lib/client/stores/user';
import { LoginInput, RegisterInput, RetrievePasswordInput, email as emailSchema, mobile as mobileSchema } from '../../lib/shared/validation/account';
import { randomUuid } from '../../lib/client/secure-context';
import ClickCaptcha from './ClickCaptcha';
import PowCaptcha from './PowCaptcha';
import { captchaMessage } from './captcha-messages';
import { serverFields, translate, typedBeforeHydration, zodFields, type Fields } from './form-helpers';

export interface LoginFormProps {
  locale: 'zh-cn' | 'en';
  /** Strings of the `user` and `validation` groups in the page's language. */
  messages: Record<string, string>;
  captchaSwitch: boolean;
  /** The captchas the site offers (setting `user_captcha_types`): both shows the picture first. */
  captchaTypes: 'both' | 'click' | 'pow';
  initialTab: 'login' | 'register' | 'retrieve';
  redirectTo: string;
}

type Pending = {
  purpose: 'login' | 'code';
  id: string;
  /** The captcha shown: the picture or the challenge without pictures. */
  kind: 'click' | 'pow';
  /** The person switched kinds: the new panel takes focus. */
  switched: boolean;
} | null;

/** What a business call carries: a click-captcha answer, or ALTCHA's payload. */
type Proof = { captchaId: string; captchaInfo: string } | { altcha: string };

function newCaptchaId(): string {
  return randomUuid();
}

export default function LoginForm(props: LoginFormProps): ReactElement {
  const m = props.messages;
  const t = (key: string, values?: Record<string, string | number>): string => translate(m, key, values);
  const [tab, setTab] = useState<'login' | 'register' | 'retrieve'>(props.initialTab);
  const [errors, setErrors] = useState<Fields>({});
  const [busy, setBusy] = useState(false);
  const [pending, setPending] = useState<Pending>(null);
  const openCaptcha = (purpose: 'login' | 'code'): void =>
    setPending({ purpose, id: newCaptchaId(), kind: props.captchaTypes === 'pow' ? 'pow' : 'click', switched: false });
  // A native modal dialog: the page behind it is inert (Tab stays inside), Escape closes it, it is
  // announced as a dialog by its name, and focus goes back to what opened it when it closes.
  const dialogRef = useRef<HTMLDialogElement>(null);
  // Tab from the last control goes round to the first (and Shift+Tab back), not out to the browser.
  const wrapTab = (e: KeyboardEvent<HTMLDialogElement>): void => {
    if (e.key !== 'Tab') return;
    const stops = [...e.currentTarget.querySelectorAll<HTMLElement>('button:not([disabled]), [href], input:not([disabled]), select, textarea, [tabindex]:not([tabindex="-1"])')]
      .filter((el) => el.offsetParent !== null || el === document.activeElement);
    if (stops.length === 0) return;
    const first = stops[0]!;
    const last = stops.at(-1)!;
    if (e.shiftKey ? document.activeElement === first || !e.currentTarget.contains(document.activeElement) : document.activeElement === last) {
      e.preventDefault();
      (e.shiftKey ? last : first).focus();
    }
  };
  const pendingId = pending?.id ?? null;
  useEffect(() => {
    if (!pendingId) return;
    const opener = document.activeElement instanceof HTMLElement ? document.activeElement : null;
    const dialog = dialogRef.current;
    if (dialog && !dialog.open) dialog.showModal();
    return () => {
      if (dialog?.open) dialog.close();
      opener?.focus();
    };
  }, [pendingId]);
  const [countdown, setCountdown] = useState(0);
  const [login, setLogin] = useState({ username: '', password: '', keep: true });
  const [reg, setReg] = useState({ username: '', password: '', registerType: 'email' as 'email' | 'mobile', email: '', mobile: '', captcha: '' });

  const formRef = useRef<HTMLFormElement>(null);
  useEffect(() => {
    setLogin((v) => typedBeforeHydration(formRef.current, v));
    setReg((v) => typedBeforeHydration(formRef.current, v));
  }, []);

  useEffect(() => {
    if (countdown <= 0) return undefined;
    const timer = setTimeout(() => setCountdown(countdown - 1), 1000);
    return () => clearTimeout(timer);
  }, [countdown]);

  const finish = (userInfo: { id: number; username: string; nickname: string; avatar: string; token: string; refresh_token?: string; show_open_source_star_time?: number }): void => {
    rememberUser(userInfo);
    location.assign(props.redirectTo);
  };

  /** Runs one request with the form busy; server field errors land beside their fields. */
  const run = async (action: () => Promise<void>): Promise<void> => {
    setBusy(true);
    try {
      await action();
    } catch (err) {
      setErrors(serverFields(err));
    } finally {
      setBusy(false);
    }
  };

  const submitLogin = async (captcha?: Proof): Promise<void> => {
    const body = { tab: 'login' as const, ...login, keep: login.keep, ...captcha };
    const parsed = LoginInput.safeParse(body);
    if (!parsed.success) return setErrors(zodFields(parsed.error, m));
    if (props.captchaSwitch && !captcha) return openCaptcha('login');
    await run(async () => {
      const reply = await request<{ userInfo: Parameters<typeof finish>[0] }>('/api/user/checkIn', { data: body, showSuccessMessage: true });
      finish(reply.data.userInfo);
    });
  };

  const sendCode = async (captcha?: Proof): Promise<void> => {
    // Sign-up sends to the new address; a password reset to the account's own.
    const isEmail = reg.registerType === 'email';
    const address = isEmail ? reg.email : reg.mobile;
    const event = tab === 'retrieve' ? 'user_retrieve_pwd' : 'user_register';
    const check = (isEmail ? emailSchema : mobileSchema).safeParse(address);
    if (!check.success) return setErrors({ [reg.registerType]: m[check.error.issues[0]?.message ?? ''] ?? '' });
    if (!captcha) return openCaptcha('code');
    await run(async () => {
      const path = isEmail ? '/api/ems/send' : '/api/sms/send';
      const data = isEmail
        ? { email: address, event, ...captcha }
        : { mobile: address, template_code: event, ...captcha };
      await request(path, { data, showSuccessMessage: true });
      setErrors({});
      setCountdown(60);
    });
  };

  const submitRegister = async (): Promise<void> => {
    const body = {
      tab: 'register' as const, username: reg.username, password: reg.password, registerType: reg.registerType, captcha: reg.captcha, keep: true,
      ...(reg.registerType === 'email' ? { email: reg.email } : { mobile: reg.mobile }),
    };
    const parsed = RegisterInput.safeParse(body);
    if (!parsed.success) return setErrors(zodFields(parsed.error, m));
    await run(async () => {
      const reply = await request<{ userInfo: Parameters<typeof finish>[0] }>('/api/user/checkIn', { data: body, showSuccessMessage: true });
      finish(reply.data.userInfo);
    });
  };

  const submitRetrieve = async (): Promise<void> => {
    const body = { type: reg.registerType, account: reg.registerType === 'email' ? reg.email : reg.mobile, captcha: reg.captcha, password: reg.password };
    const parsed = RetrievePasswordInput.safeParse(body);
    if (!parsed.success) {
      const fields = zodFields(parsed.error, m);
      if (fields.account) fields[reg.registerType] = fields.account;
      return setErrors(fields);
    }
    await run(async () => {
      await request('/api/account/retrievePassword', { data: body, showSuccessMessage: true });
      setReg({ ...reg, password: '', captcha: '' });
      setTab('login');
    });
  };

  /** The captcha is passed: close the dialog and send what waited for it. */
  const passCaptcha = (proof: Proof): void => {
    const purpose = pending?.purpose;
    setPending(null);
    void (purpose === 'login' ? submitLogin(proof) : sendCode(proof));
  };

  const onSubmit = (e: FormEvent): void => {
    e.preventDefault();
    setErrors({});
    void (tab === 'login' ? submitLogin() : tab === 'register' ? submitRegister() : submitRetrieve());
  };

  const field = (name: string, label: string, input: ReactElement): ReactElement => (
    <label className="field">
      <span>{label}</span>
      {input}
      {errors[name] && <span className="field-error" role="alert" id={`err-${name}`}>{errors[name]}</span>}
    </label>
  );
  const described = (name: string) => (errors[name] ? { 'aria-invalid': true, 'aria-describedby': `err-${name}` } : {});

  // Resetting a password is its own task: its own heading, and the account comes first.
  const retrieve = tab === 'retrieve';
  const passwordField = field('password', t(retrieve ? 'user.password.new' : 'user.login.password'), <input name="password" type="password" autoComplete="new-password" value={reg.password} {...described('password')} onChange={(e) => setReg({ ...reg, password: e.target.value })} />);
  return (
    <div className="login-form">
      <h1 className="page-title">{t(retrieve ? 'user.login.retrieveTitle' : tab === 'register' ? 'user.login.registerTitle' : 'user.login.title')}</h1>
      <p className="muted">{t(retrieve ? 'user.login.retrieveLead' : 'user.login.lead')}</p>
      <div className="tabs" role="tablist">
        {(tab === 'retrieve' ? (['login', 'retrieve'] as const) : (['login', 'register'] as const)).map((name) => (
          <button key={name} type="button" role="tab" aria-selected={tab === name} className={tab === name ? 'tab active' : 'tab'}
            onClick={() => { setTab(name); setErrors({}); }}>
            {t(name === 'login' ? 'user.login.tabLogin' : name === 'register' ? 'user.login.tabRegister' : 'user.login.tabRetrieve')}
          </button>
        ))}
      </div>
      <form method="post" ref={formRef} onSubmit={onSubmit} noValidate>
        {tab === 'login' ? (
          <>
            {field('username', t('user.login.account'), <input type="text" name="username" autoComplete="username" value={login.username} {...described('username')} onChange={(e) => setLogin({ ...login, username: e.target.value })} />)}
            {field('password', t('user.login.password'), <input name="password" type="password" autoComplete="current-password" value={login.password} {...described('password')} onChange={(e) => setLogin({ ...login, password: e.target.value })} />)}
            <label className="check"><input type="checkbox" checked={login.keep} onChange={(e) => setLogin({ ...login, keep: e.target.checked })} /> {t('user.login.keep')}</label>
            {errors.captcha && <p className="field-error" role="alert">{errors.captcha}</p>}
            <button className="btn btn-primary wide" type="submit" disabled={busy}>{t('user.login.submit')}</button>
            <p className="small"><button type="button" className="link-btn" onClick={() => { setTab('retrieve'); setErrors({}); }}>{t('user.login.forgot')}</button></p>
          </>
        ) : (
          <>
            {tab === 'register' && field('username', t('user.login.username'), <input type="text" name="username" autoComplete="username" value={reg.username} {...described('username')} onChange={(e) => setReg({ ...reg, username: e.target.value })} />)}
            {!retrieve && passwordField}
            <fieldset className="field radio-group">
              <legend>{t('user.login.registerBy')}</legend>
              {(['email', 'mobile'] as const).map((kind) => (
                <label key={kind} className="check"><input type="radio" name="registerType" checked={reg.registerType === kind} onChange={() => setReg({ ...reg, registerType: kind })} /> {t(kind === 'email' ? 'user.login.byEmail' : 'user.login.byMobile')}</label>
              ))}
            </fieldset>
            {reg.registerType === 'email'
              ? field('email', t('user.login.email'), <input name="email" type="email" autoComplete="email" value={reg.email} {...described('email')} onChange={(e) => setReg({ ...reg, email: e.target.value })} />)
              : field('mobile', t('user.login.mobile'), <input name="mobile" type="tel" autoComplete="tel" value={reg.mobile} {...described('mobile')} onChange={(e) => setReg({ ...reg, mobile: e.target.value })} />)}
            <div className="code-row">
              {field('captcha', t('user.login.code'), <input type="text" name="code" inputMode="numeric" autoComplete="one-time-code" value={reg.captcha} {...described('captcha')} onChange={(e) => setReg({ ...reg, captcha: e.target.value })} />)}
              <button className="btn" type="button" disabled={busy || countdown > 0} onClick={() => void sendCode()}>
                {countdown > 0 ? t('user.login.resend', { seconds: countdown }) : t('user.login.sendCode')}
              </button>
            </div>
            {retrieve && passwordField}
            <button className="btn btn-primary wide" type="submit" disabled={busy}>{t(retrieve ? 'user.login.resetSubmit' : 'user.login.registerSubmit')}</button>
          </>
        )}
      </form>
      {pending && (
        <dialog ref={dialogRef} className="dialog card" aria-label={t('user.login.captchaTitle')}
          onCancel={(e) => { e.preventDefault(); setPending(null); }} onKeyDown={wrapTab}>
          {/* First in the dialog, so it is where focus lands: a person who cannot see the picture hears it at once. */}
          {props.captchaTypes === 'both' && (
            <p style={{ margin: '0 0 .6rem' }}>
              <button type="button" className="link-btn" onClick={() => setPending({ ...pending, kind: pending.kind === 'click' ? 'pow' : 'click', switched: true })}>
                {captchaMessage(props.locale, pending.kind === 'click' ? 'captcha.pow.switch' : 'captcha.pow.switchBack')}
              </button>
            </p>
          )}
          {pending.kind === 'click' ? (
            <ClickCaptcha
              key={pending.id}
              locale={props.locale}
              captchaId={pending.id}
              onVerified={(info) => passCaptcha({ captchaId: pending.id, captchaInfo: info })}
            />
          ) : (
            <PowCaptcha key={pending.id} locale={props.locale} autoFocus={pending.switched} onVerified={(altcha) => passCaptcha({ altcha })} />
          )}
          {/* One way out besides Escape: this button (the captcha's own × would repeat it). */}
          <button className="btn dialog-cancel" type="button" onClick={() => setPending(null)}>{t('user.login.cancel')}</button>
        </dialog>
      )}
    </div>
  );
}
