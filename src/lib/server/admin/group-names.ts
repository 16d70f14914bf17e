// The two groups every site starts with are stored with their Chinese names (a new site's default
// language); while an administrator has not renamed them, pages show them in the reader's language.
import { translateAny, type Locale } from '../../i18n';
import { ADMIN_GROUP, MEMBER_GROUP } from '../site/seed';

const DEFAULT_NAMES: Record<number, { name: string; key: string }> = {
  [MEMBER_GROUP]: { name: '默认分组', key: 'admin.group.default.members' },
  [ADMIN_GROUP]: { name: '管理员', key: 'admin.group.default.admins' },
};

/** A group's name as a page in `locale` shows it. */
export function groupLabel(group: { id: number; name: string }, locale: Locale): string {
  const seeded = DEFAULT_NAMES[group.id];
  return seeded && seeded.name === group.name ? translateAny(locale, seeded.key) : group.name;
}
