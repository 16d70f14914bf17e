// Cascading province → city (→ district) selects fed by GET /api/ajax/area. Replies are kept in
// memory for the page, one per parent, so several selects (or a change back) fetch once.
import { useEffect, useId, useSyncExternalStore, type ReactElement } from 'react';
import { request } from '../../lib/client/api';

export interface AreaValue {
  province?: string;
  city?: string;
  district?: string;
}

export interface AreaOption {
  /** The division code: province 2 digits, city 4, district 6 (9 for a town where a city has no districts). */
  value: string;
  label: string;
}

/**
 * Props of `AreaSelect` (a controlled component):
 * - `value`: the chosen codes; a level left out is not chosen.
 * - `onChange(v)`: called with the whole new value; choosing a province drops city and district,
 *   choosing a city drops the district.
 * - `levels`: 2 for province + city (default), 3 to add the district.
 * - `names`: form field names for the selects, so a plain `<form>` (FormData) submits the codes.
 * - `labels`: every visible string, in the page's language (dictionary group `area`): the three
 *   field labels, the placeholder (`choose`), the loading text and the retry text (`failed`).
 * - `required`: each shown level must be chosen (a level with no options is exempt).
 * - `disabled`: all selects disabled.
 */
export interface AreaSelectProps {
  value: AreaValue;
  onChange(v: AreaValue): void;
  levels?: 2 | 3;
  names?: { province: string; city: string; district?: string };
  labels: { province: string; city: string; district: string; choose: string; loading: string; failed: string };
  required?: boolean;
  disabled?: boolean;
}

type Entry =
  | { status: 'idle' | 'loading' | 'failed' }
  | { status: 'ready'; options: readonly AreaOption[] };

const IDLE: Entry = { status: 'idle' };
const LOADING: Entry = { status: 'loading' };
const FAILED: Entry = { status: 'failed' };

// One entry per parent (`''` provinces, `11` cities of 11, `11/1101` districts of 1101).
const entries = new Map<string, Entry>();
const listeners = new Set<() => void>();

function setEntry(key: string, entry: Entry): void {
  entries.set(key, entry);
  for (const listener of listeners) listener();
}

function subscribe(listener: () => void): () => void {
  listeners.add(listener);
  return () => { listeners.delete(listener); };
}

/** Fetches one list unless it is loaded or on its way; a failed list is fetched again. */
function load(key: string, province: string | undefined, city: string | undefined): void {
  const status = entries.get(key)?.status;
  if (status === 'loading' || status === 'ready') return;
  setEntry(key, LOADING);
  request<AreaOption[]>('/api/ajax/area', { params: { province, city }, showErrorMessage: false }).then(
    (reply) => setEntry(key, { status: 'ready', options: Array.isArray(reply.data) ? reply.data : [] }),
    () => setEntry(key, FAILED),
  );
}

/** The list under one parent; `key` null means the parent is not chosen yet. */
function useOptions(key: string | null, province?: string, city?: string): { entry: Entry; retry(): void } {
  // The server renders (and hydration starts from) "loading", so markup matches whatever is cached.
  const entry = useSyncExternalStore(subscribe, () => (key === null ? IDLE : entries.get(key) ?? LOADING), () => (key === null ? IDLE : LOADING));
  useEffect(() => {
    if (key !== null) load(key, province, city);
  }, [key, province, city]);
  return { entry, retry: () => { if (key !== null) load(key, province, city); } };
}

export default function AreaSelect({ value, onChange, levels = 2, names, labels, required = false, disabled = false }: AreaSelectProps): ReactElement {
  const id = useId();
  const { province, city, district } = value;
  const provinceList = useOptions('');
  const cityList = useOptions(province ? province : null, province);
  const districtList = useOptions(levels === 3 && province && city ? `${province}/${city}` : null, province, city);

  const level = (part: 'province' | 'city' | 'district', current: string | undefined, list: ReturnType<typeof useOptions>, choose: (code: string) => AreaValue): ReactElement => {
    const { entry } = list;
    const selectId = `${id}-${part}`;
    const options = entry.status === 'ready' ? entry.options : [];
    const busy = entry.status === 'loading';
    // Until its list arrives a chosen code stays selected (and submitted) under the loading text.
    const pending = current && entry.status !== 'ready' ? <option value={current}>{busy ? labels.loading : current}</option> : null;
    return (
      <div className="field">
        <label htmlFor={selectId}>{labels[part]}</label>
        <select id={selectId} name={names?.[part]} value={current ?? ''} required={required && entry.status !== 'idle' && !(entry.status === 'ready' && options.length === 0)}
          disabled={disabled || entry.status === 'idle' || (entry.status === 'ready' && options.length === 0)} aria-busy={busy || undefined}
          onChange={(e) => onChange(choose(e.target.value))}>
          <option value="">{busy && !current ? labels.loading : labels.choose}</option>
          {pending}
          {options.map((o) => <option key={o.value} value={o.value}>{o.label}</option>)}
        </select>
        <span aria-live="polite">
          {entry.status === 'failed' && <button type="button" className="link-btn" disabled={disabled} onClick={list.retry}>{labels.failed}</button>}
        </span>
      </div>
    );
  };

  return (
    <div className="area-select">
      {level('province', province, provinceList, (code) => (code ? { province: code } : {}))}
      {level('city', city, cityList, (code) => (code ? { province, city: code } : { province }))}
      {levels === 3 && level('district', district, districtList, (code) => (code ? { province, city, district: code } : { province, city }))}
    </div>
  );
}
