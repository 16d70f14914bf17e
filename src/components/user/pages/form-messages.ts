// The strings the member-center forms (islands) use: only these travel to the browser.
import { DICTIONARIES } from '../../../lib/i18n';
import type { Locale } from '../../../lib/i18n/types';

const FORM_KEYS = /^user\.(?:profile|password|signIn)\.|^user\.login\.username$/;

export function memberFormMessages(locale: Locale): Record<string, string> {
  return {
    ...Object.fromEntries(Object.entries(DICTIONARIES[locale].user).filter(([k]) => FORM_KEYS.test(k))),
    ...DICTIONARIES[locale].validation,
  };
}
