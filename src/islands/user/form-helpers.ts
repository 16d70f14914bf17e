// Small helpers the member-center forms share: message lookup and field errors.
import { useEffect, useRef, useState } from 'react';
import type { z } from 'zod';
import { ApiError } from '../../lib/client/api';
import { interpolate } from '../../lib/i18n/types';

export type Messages = Record<string, string>;
export type Fields = Record<string, string>;

export function translate(messages: Messages, key: string, values?: Record<string, string | number>): string {
  return interpolate(messages[key] ?? key, values);
}

/** Client-side schema failures, in the same words the server would use. */
export function zodFields(error: z.ZodError, messages: Messages): Fields {
  const out: Fields = {};
  for (const issue of error.issues) {
    const name = String(issue.path[0] ?? '_');
    out[name] ??= messages[issue.message] ?? messages['validation.required'] ?? issue.message;
  }
  return out;
}

/** Field errors the server sent back (`data.fields`), or none. */
export function serverFields(err: unknown): Fields {
  return err instanceof ApiError ? ((err.data as { fields?: Fields } | null)?.fields ?? {}) : {};
}

/**
 * What the visitor typed before the island hydrated: React starts from its initial state and would
 * otherwise wipe those characters on the first render. Text inputs only, read by `name`.
 */
export function typedBeforeHydration<T extends object>(form: HTMLFormElement | null, values: T): T {
  if (!form) return values;
  const current = values as Record<string, unknown>;
  const next: Record<string, unknown> = { ...current };
  let changed = false;
  for (const el of Array.from(form.elements)) {
    if (!(el instanceof HTMLInputElement || el instanceof HTMLTextAreaElement) || !el.name || !(el.name in current)) continue;
    if (el instanceof HTMLInputElement && (el.type === 'radio' || el.type === 'checkbox')) continue;
    if (typeof current[el.name] === 'string' && el.value !== current[el.name]) {
      next[el.name] = el.value;
      changed = true;
    }
  }
  return changed ? (next as T) : values;
}

/**
 * The state every member-center form keeps: its values (with what was typed before hydration),
 * field errors, and a busy flag while a request runs.
 */
export function useForm<T extends object>(initial: T) {
  const [values, setValues] = useState(initial);
  const [errors, setErrors] = useState<Fields>({});
  const [busy, setBusy] = useState(false);
  const formRef = useRef<HTMLFormElement>(null);
  useEffect(() => { setValues((v) => typedBeforeHydration(formRef.current, v)); }, []);
  /** Runs a request with the busy flag set; server field errors land beside their fields. */
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
  return { values, setValues, errors, setErrors, busy, formRef, run };
}
