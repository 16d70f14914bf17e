// Helpers the message-center islands share.
import { translate, type Messages } from '../user/form-helpers';
import { formatDate } from '../../lib/shared/date';

export type { Messages };

export function makeT(messages: Messages): (key: string, values?: Record<string, string | number>) => string {
  return (key, values) => translate(messages, key, values);
}

export function when(seconds: number, timeZone: string): string {
  return formatDate(seconds, 'yyyy-mm-dd hh:MM', timeZone);
}

/** The first letter of a name, for avatars without a picture. */
export function initial(name: string): string {
  return [...name][0]?.toUpperCase() ?? '?';
}
