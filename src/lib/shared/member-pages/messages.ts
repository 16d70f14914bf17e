// The message center's member-center page (see ../member-center.ts): a page of its own, not a menu link.
import { registerMemberPage } from '../member-center';

registerMemberPage({ path: 'messageCenter', kind: 'route', title: '消息中心', component: 'messages/MessageCenter' });
