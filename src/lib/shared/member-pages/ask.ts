// The forum's member-center pages (see ../member-center.ts).
import { registerMemberMenu, registerMemberPage } from '../member-center';

registerMemberMenu({ name: 'ask', title: '社区', icon: 'chat' });
registerMemberPage({ path: 'ask/post', menu: 'ask', title: '我的帖子', icon: 'edit', component: 'user/AskMine', props: { kind: 'post' } });
registerMemberPage({ path: 'ask/comment', menu: 'ask', title: '我的回复', icon: 'reply', component: 'user/AskMine', props: { kind: 'comment' } });
registerMemberPage({ path: 'ask/collect', menu: 'ask', title: '我的收藏', icon: 'bookmark', component: 'user/AskMine', props: { kind: 'collect' } });
registerMemberPage({ path: 'ask/myReports', menu: 'ask', title: '我的举报', icon: 'flag', component: 'user/MyReports' });
registerMemberPage({
  path: 'ask/reports', menu: 'ask', title: '举报处理', icon: 'flag', component: 'user/AskReports', wrap: 'user/pages/ModeratorOnly', moderator: true,
  buttons: [{ name: 'ask/moderate', title: '管理帖子', moderator: true }],
});
