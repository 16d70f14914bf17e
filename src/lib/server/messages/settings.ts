// The message center's site settings (config:list / config:set, and the admin console).
import type { ConfigStore } from '../site/config';
import { POLL_CONNECTED, POLL_FALLBACK } from '../../shared/messages';
import { registerSettings } from '../seeds';

export const MESSAGE_CONFIG = [
  { name: 'message_poll_interval', group: 'messages', title: 'Unread-count poll without the stream (s)', tip: 'Seconds between polls when the push stream cannot be held', type: 'number', value: String(POLL_FALLBACK) },
  { name: 'message_poll_connected', group: 'messages', title: 'Unread-count poll with the stream (s)', tip: 'Seconds between polls while the push stream is connected', type: 'number', value: String(POLL_CONNECTED) },
  { name: 'message_mail_delay', group: 'messages', title: 'Mail unread messages after (minutes)', tip: 'Minutes a message stays unread before it is e-mailed', type: 'number', value: '15' },
  { name: 'message_retention_days', group: 'messages', title: 'Keep read messages (days)', tip: 'Read messages older than this are deleted; private conversations are kept', type: 'number', value: '180' },
];
registerSettings({ name: 'messages', order: 20, rows: MESSAGE_CONFIG });

async function number(site: ConfigStore, name: string, fallback: number, min: number, max: number): Promise<number> {
  const n = Number(await site.get(name, String(fallback)));
  return Number.isFinite(n) ? Math.min(max, Math.max(min, Math.round(n))) : fallback;
}

/** Seconds the badge waits between polls: longer while the stream is there to push. */
export async function pollingInterval(site: ConfigStore, pushConnected: boolean): Promise<number> {
  return pushConnected
    ? number(site, 'message_poll_connected', POLL_CONNECTED, 5, 3600)
    : number(site, 'message_poll_interval', POLL_FALLBACK, 3, 3600);
}

export const mailDelayMinutes = (site: ConfigStore): Promise<number> => number(site, 'message_mail_delay', 15, 0, 10_080);
export const retentionDays = (site: ConfigStore): Promise<number> => number(site, 'message_retention_days', 180, 1, 36_500);
