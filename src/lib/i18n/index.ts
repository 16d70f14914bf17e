import { interpolate, type Locale } from './types';
import zhCommon from './zh-cn/common';
import enCommon from './en/common';
import zhApi from './zh-cn/api';
import enApi from './en/api';
import zhHome from './zh-cn/home';
import enHome from './en/home';
import zhAsk from './zh-cn/ask';
import enAsk from './en/ask';
import zhMd from './zh-cn/md';
import enMd from './en/md';
import zhModules from './zh-cn/modules';
import enModules from './en/modules';
import zhUser from './zh-cn/user';
import enUser from './en/user';
import zhChat from './zh-cn/chat';
import zhCaptcha from './zh-cn/captcha';
import enCaptcha from './en/captcha';
import zhValidation from './zh-cn/validation';
import enValidation from './en/validation';
import zhAccount from './zh-cn/account';
import enAccount from './en/account';
import enChat from './en/chat';
import zhUpload from './zh-cn/upload';
import enUpload from './en/upload';
import zhEditor from './zh-cn/editor';
import enEditor from './en/editor';
import zhMdedit from './zh-cn/mdedit';
import enMdedit from './en/mdedit';
import zhMarket from './zh-cn/market';
import enMarket from './en/market';
import zhDeveloper from './zh-cn/developer';
import enDeveloper from './en/developer';
import zhDevstudio from './zh-cn/devstudio';
import enDevstudio from './en/devstudio';
import zhArea from './zh-cn/area';
import enArea from './en/area';
import zhAdmin from './zh-cn/admin';
import enAdmin from './en/admin';
import zhMessages from './zh-cn/messages';
import enMessages from './en/messages';

export * from './types';

const zh = { common: zhCommon, api: zhApi, home: zhHome, ask: zhAsk, md: zhMd, modules: zhModules, user: zhUser, chat: zhChat, captcha: zhCaptcha, validation: zhValidation, account: zhAccount, upload: zhUpload, editor: zhEditor, mdedit: zhMdedit, market: zhMarket, developer: zhDeveloper, devstudio: zhDevstudio, area: zhArea, admin: zhAdmin, messages: zhMessages };
type Groups = typeof zh;
export type Group = keyof Groups;

/** Every dictionary by locale and page group; en is checked against zh-cn key by key. */
export const DICTIONARIES: Record<Locale, { [G in keyof Groups]: Record<keyof Groups[G], string> }> = {
  'zh-cn': zh,
  en: { common: enCommon, api: enApi, home: enHome, ask: enAsk, md: enMd, modules: enModules, user: enUser, chat: enChat, captcha: enCaptcha, validation: enValidation, account: enAccount, upload: enUpload, editor: enEditor, mdedit: enMdedit, market: enMarket, developer: enDeveloper, devstudio: enDevstudio, area: enArea, admin: enAdmin, messages: enMessages },
};

export type Key<G extends Group> = keyof Groups['common'] | keyof Groups[G];
export type Translate<G extends Group> = (key: Key<G>, values?: Record<string, string | number>) => string;

/** Returns `t()` for one request: the common strings plus one page group, in one locale. */
export function translator<G extends Group>(locale: Locale, group: G): Translate<G> {
  const common = DICTIONARIES[locale].common as Record<string, string>;
  const own = DICTIONARIES[locale][group] as Record<string, string>;
  return (key, values) => {
    const k = key as string;
    return interpolate(own[k] ?? common[k] ?? k, values);
  };
}

/** Looks a key up in any group (for rule titles and other data-driven keys); null when absent. */
export function lookup(locale: Locale, group: keyof Groups, key: string): string | null {
  return (DICTIONARIES[locale][group] as Record<string, string>)[key] ?? null;
}

/** Any message key of any group → text; for errors raised deep in services. Unknown keys come back as they are. */
export function translateAny(locale: Locale, key: string, values?: Record<string, string | number>): string {
  for (const group of Object.values(DICTIONARIES[locale]) as Record<string, string>[]) {
    const text = group[key];
    if (text !== undefined) return interpolate(text, values);
  }
  return key;
}

/** Every message key of every group. */
export type AnyKey = { [G in keyof Groups]: keyof Groups[G] }[keyof Groups];
