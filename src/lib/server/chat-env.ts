// The chat settings read from the environment: one model (CHAT_BASE_URL, CHAT_MODEL, …) that needs
// no database row, and the provider timeout. Models added with `npm run atrium -- chat:add` join it.

export interface EnvModel {
  name: string;
  title: string;
  baseUrl: string;
  apiKey: string;
  modelId: string;
  contextWindow: number;
  pricePer1k: number;
  pricePerMessage: number;
  freeDaily: number;
  freeUnit: 'messages' | 'tokens';
  audience: 'visitors' | 'members' | 'groups';
  groups: string;
}

export interface ChatEnv {
  model: EnvModel | null;
  /** Seconds to wait for the provider's first token (and between tokens) before giving up. */
  timeoutSeconds: number;
}

function count(value: string | undefined, fallback: number, name: string): number {
  if (value === undefined || value === '') return fallback;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0) throw new Error(`${name} must be a non-negative whole number, got "${value}"`);
  return n;
}

export function readChatEnv(env: NodeJS.ProcessEnv): ChatEnv {
  const timeoutSeconds = count(env.CHAT_TIMEOUT_SECONDS, 60, 'CHAT_TIMEOUT_SECONDS') || 60;
  if (!env.CHAT_BASE_URL || !env.CHAT_MODEL) return { model: null, timeoutSeconds };
  const audience = env.CHAT_AUDIENCE || 'members';
  if (!['visitors', 'members', 'groups'].includes(audience)) throw new Error(`CHAT_AUDIENCE must be visitors, members or groups, got "${audience}"`);
  const freeUnit = env.CHAT_FREE_UNIT || 'messages';
  if (!['messages', 'tokens'].includes(freeUnit)) throw new Error(`CHAT_FREE_UNIT must be messages or tokens, got "${freeUnit}"`);
  const name = env.CHAT_MODEL_NAME || 'default';
  if (!/^[A-Za-z0-9._-]{1,64}$/.test(name) || name === 'site') throw new Error(`CHAT_MODEL_NAME must be 1–64 letters, digits, ".", "_" or "-" (not "site"), got "${name}"`);
  return {
    timeoutSeconds,
    model: {
      name,
      title: env.CHAT_MODEL_TITLE || env.CHAT_MODEL,
      baseUrl: env.CHAT_BASE_URL,
      apiKey: env.CHAT_API_KEY ?? '',
      modelId: env.CHAT_MODEL,
      contextWindow: count(env.CHAT_CONTEXT_WINDOW, 8192, 'CHAT_CONTEXT_WINDOW') || 8192,
      pricePer1k: count(env.CHAT_PRICE_PER_1K, 0, 'CHAT_PRICE_PER_1K'),
      pricePerMessage: count(env.CHAT_PRICE_PER_MESSAGE, 0, 'CHAT_PRICE_PER_MESSAGE'),
      freeDaily: count(env.CHAT_FREE_DAILY, 0, 'CHAT_FREE_DAILY'),
      freeUnit: freeUnit as EnvModel['freeUnit'],
      audience: audience as EnvModel['audience'],
      groups: env.CHAT_GROUPS ?? '',
    },
  };
}
