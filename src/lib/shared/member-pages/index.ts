// Loads every area's member-center pages into the registry (../member-center.ts), in the order the
// menu and the seeded rule tree show them. A module registers its own at run time.
import './account';
import './ask';
import './market';
import './messages';

export { findMemberPage, memberMenus, memberModeratorRules, memberPages, memberPageTitleKey, type MemberMenu, type MemberPage } from '../member-center';
