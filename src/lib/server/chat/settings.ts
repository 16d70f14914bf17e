import type { ConfigStore } from '../site/config';
import { registerSettings } from '../seeds';

/** The chat's site settings (config rows registered for the seed, changed with `config:set` or the admin console). */
export const CHAT_SETTINGS = [
  { name: 'chat_max_question', group: 'chat', title: 'Longest question (characters)', type: 'number', value: '4000' },
  { name: 'chat_max_messages', group: 'chat', title: 'Most messages in one conversation', type: 'number', value: '200' },
  { name: 'chat_rate_member', group: 'chat', title: 'Questions a member may ask per minute', type: 'number', value: '40' },
  { name: 'chat_rate_ip', group: 'chat', title: 'Questions one address may ask per minute', type: 'number', value: '40' },
  { name: 'chat_retrieval_tokens', group: 'chat', title: 'Tokens of site passages given to the model', type: 'number', value: '1500' },
  { name: 'chat_default_model', group: 'chat', title: 'Model the page starts with', type: 'string', value: '', tip: 'Empty: the first model the reader may use, else the site assistant' },
] as const;
registerSettings({ name: 'chat', order: 30, rows: CHAT_SETTINGS });

export interface ChatSettings {
  maxQuestion: number;
  maxMessages: number;
  rateMember: number;
  rateIp: number;
  retrievalTokens: number;
  defaultModel: string;
}

function num(raw: string, fallback: number): number {
  const n = Number(raw);
  return Number.isFinite(n) && n > 0 ? Math.floor(n) : fallback;
}

export async function chatSettings(site: ConfigStore): Promise<ChatSettings> {
  const all = await site.all();
  return {
    maxQuestion: Math.min(num(all.get('chat_max_question') ?? '', 4000), 32_000),
    maxMessages: num(all.get('chat_max_messages') ?? '', 200),
    rateMember: num(all.get('chat_rate_member') ?? '', 40),
    rateIp: num(all.get('chat_rate_ip') ?? '', 40),
    retrievalTokens: num(all.get('chat_retrieval_tokens') ?? '', 1500),
    defaultModel: all.get('chat_default_model') ?? '',
  };
}
