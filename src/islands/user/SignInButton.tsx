// Today's check-in. The server decides (one per calendar day); the button only asks.
import { useState, type ReactElement } from 'react';
import { request } from '../../lib/client/api';
import { translate, type Messages } from './form-helpers';

export interface SignInProps {
  messages: Messages;
  signedToday: boolean;
  streak: number;
  reward: number;
}

export default function SignInButton(props: SignInProps): ReactElement {
  const t = (k: string, v?: Record<string, string | number>): string => translate(props.messages, k, v);
  const [state, setState] = useState({ signedToday: props.signedToday, streak: props.streak });
  const [busy, setBusy] = useState(false);
  const click = async (): Promise<void> => {
    setBusy(true);
    try {
      const reply = await request<{ streak: number }>('/api/account/signIn', { method: 'POST', data: {}, showSuccessMessage: true });
      setState({ signedToday: true, streak: reply.data.streak });
    } catch {
      // The request layer already said why.
    } finally {
      setBusy(false);
    }
  };
  return (
    <div className="card">
      <p role="status">{state.signedToday ? t('user.signIn.today', { streak: state.streak }) : t('user.signIn.notYet')}</p>
      {!state.signedToday && (
        <button className="btn btn-primary" type="button" disabled={busy} onClick={() => void click()}>{t('user.signIn.button', { score: props.reward })}</button>
      )}
    </div>
  );
}
