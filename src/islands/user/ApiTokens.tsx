// The member center's API tokens: make one (shown this once, to copy into the other site's
// `module:remote:connect`) or revoke one; the list itself is rendered by the page.
import { useState, type ReactElement, type SyntheticEvent } from 'react';
import { request } from '../../lib/client/api';

export default function ApiTokens({ messages, tokens }: { messages: Record<string, string>; tokens: { id: number; name: string; created: string; used: string }[] }): ReactElement {
  const t = (k: string): string => messages[k] ?? k;
  const [name, setName] = useState('');
  const [made, setMade] = useState('');
  const [list, setList] = useState(tokens);
  const [busy, setBusy] = useState(false);

  const create = async (e: SyntheticEvent): Promise<void> => {
    e.preventDefault();
    setBusy(true);
    try {
      const res = await request<{ id: number; token: string }>('/api/account/apiTokens', { data: { action: 'create', name }, showSuccessMessage: true });
      if (res.code === 1) {
        setMade(res.data.token);
        setList([{ id: res.data.id, name: name.trim(), created: t('market.remote.page.justNow'), used: '—' }, ...list]);
        setName('');
      }
    } finally {
      setBusy(false);
    }
  };
  const revoke = async (id: number): Promise<void> => {
    const res = await request('/api/account/apiTokens', { data: { action: 'revoke', id }, showSuccessMessage: true });
    if (res.code === 1) setList(list.filter((r) => r.id !== id));
  };

  return (
    <div className="card" data-testid="api-tokens">
      <form method="post" className="form-narrow" onSubmit={(e) => void create(e)}>
        <label className="field">
          <span>{t('market.remote.page.name')}</span>
          <input type="text" name="name" maxLength={60} required value={name} onChange={(e) => setName(e.target.value)} />
        </label>
        <button className="btn btn-primary" type="submit" disabled={busy || !name.trim()}>{t('market.remote.page.create')}</button>
      </form>
      {made && (
        <div role="status">
          <p>{t('market.remote.page.copy')}</p>
          <p><code data-testid="api-token-value">{made}</code></p>
        </div>
      )}
      {list.length === 0 ? <p className="muted">{t('market.remote.page.none')}</p> : (
        <div className="table-wrap" tabIndex={0}>
          <table className="table table-fit">
            <thead><tr><th>{t('market.remote.page.name')}</th><th>{t('market.remote.page.created')}</th><th>{t('market.remote.page.used')}</th><th></th></tr></thead>
            <tbody>
              {list.map((r) => (
                <tr key={r.id}>
                  <td>{r.name}</td><td>{r.created}</td><td>{r.used}</td>
                  <td><button type="button" className="btn btn-sm" onClick={() => void revoke(r.id)}>{t('market.remote.page.revoke')}</button></td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </div>
  );
}
