// Today's check-in and the month's calendar. The server decides (one per calendar day); the
// button only asks, and the calendar marks today once it has answered.
import { useState, type ReactElement } from 'react';
import { request } from '../../lib/client/api';
import { translate, type Messages } from './form-helpers';
import './checkin.css';

export interface SignInProps {
  messages: Messages;
  signedToday: boolean;
  streak: number;
  reward: number;
  /** The month shown, from the server (site time zone). */
  calendar: {
    month: string;
    today: string;
    firstWeekday: number;
    length: number;
    days: { day: string; score: number }[];
    prev: string | null;
    next: string | null;
  };
}

export default function SignInButton(props: SignInProps): ReactElement {
  const t = (k: string, v?: Record<string, string | number>): string => translate(props.messages, k, v);
  const [state, setState] = useState({ signedToday: props.signedToday, streak: props.streak });
  const [days, setDays] = useState(props.calendar.days);
  const [busy, setBusy] = useState(false);
  const { calendar } = props;
  const click = async (): Promise<void> => {
    setBusy(true);
    try {
      const reply = await request<{ streak: number; score: number; added: boolean }>('/api/account/signIn', { method: 'POST', data: {}, showSuccessMessage: true });
      setState({ signedToday: true, streak: reply.data.streak });
      if (reply.data.added && calendar.today.startsWith(calendar.month) && !days.some((d) => d.day === calendar.today)) {
        setDays([...days, { day: calendar.today, score: reply.data.score }]);
      }
    } catch {
      // The request layer already said why.
    } finally {
      setBusy(false);
    }
  };
  const [year, month] = calendar.month.split('-').map(Number) as [number, number];
  const title = t('user.signIn.monthTitle', { year, month, monthName: t('user.signIn.monthNames').split(',')[month - 1] ?? String(month) });
  const byDay = new Map(days.map((d) => [d.day, d.score]));
  const total = days.reduce((sum, d) => sum + d.score, 0);
  const cells: ReactElement[] = [];
  for (let i = 0; i < calendar.firstWeekday; i++) cells.push(<li key={`pad${i}`} className="checkin-day is-pad" aria-hidden="true" />);
  for (let d = 1; d <= calendar.length; d++) {
    const date = `${calendar.month}-${String(d).padStart(2, '0')}`;
    const score = byDay.get(date);
    const today = date === calendar.today;
    const label = score !== undefined ? t('user.signIn.dayChecked', { date, score }) : t('user.signIn.dayMissed', { date });
    cells.push(
      <li key={date} className={`checkin-day${score !== undefined ? ' is-checked' : ''}${today ? ' is-today' : ''}${date > calendar.today ? ' is-future' : ''}`}
        aria-current={today ? 'date' : undefined} data-day={date}>
        <span className="visually-hidden">{label}</span>
        <span className="checkin-day__n" aria-hidden="true">{d}</span>
        {score !== undefined && <span className="checkin-day__pts" aria-hidden="true">✓ +{score}</span>}
      </li>,
    );
  }
  return (
    <div className="checkin">
      <div className="card checkin-status">
        <p role="status">{state.signedToday ? t('user.signIn.today', { streak: state.streak }) : t('user.signIn.notYet')}</p>
        {!state.signedToday && (
          <button className="btn btn-primary" type="button" disabled={busy} onClick={() => void click()}>{t('user.signIn.button', { score: props.reward })}</button>
        )}
        <p className="checkin-stats">
          <strong>{t('user.signIn.streak', { count: state.streak })}</strong>
          <span className="muted">{t('user.signIn.monthSummary', { days: days.length, score: total })}</span>
        </p>
      </div>
      <section className="card checkin-calendar" aria-label={t('user.signIn.calendar')}>
        <header className="checkin-calendar__head">
          {calendar.prev ? <a className="btn" href={`?month=${calendar.prev}`} aria-label={t('user.signIn.prev')}>‹</a> : <span className="btn is-disabled" aria-hidden="true">‹</span>}
          <h2>{title}</h2>
          {calendar.next ? <a className="btn" href={`?month=${calendar.next}`} aria-label={t('user.signIn.next')}>›</a> : <span className="btn is-disabled" aria-hidden="true">›</span>}
        </header>
        <ol className="checkin-grid checkin-weekdays" aria-hidden="true">
          {t('user.signIn.weekdays').split(',').map((w) => <li key={w}>{w}</li>)}
        </ol>
        <ol className="checkin-grid">{cells}</ol>
      </section>
    </div>
  );
}
