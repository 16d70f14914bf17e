// The account area's member-center pages (see ../member-center.ts).
import { registerMemberMenu, registerMemberPage } from '../member-center';

registerMemberMenu({ name: 'account', title: '我的账户', icon: 'user' });
registerMemberPage({ path: 'account/overview', menu: 'account', title: '账户概览', icon: 'home', component: 'user/Overview' });
registerMemberPage({ path: 'account/profile', menu: 'account', title: '个人资料', icon: 'id-card', component: 'user/pages/Profile' });
registerMemberPage({ path: 'account/changePassword', menu: 'account', title: '修改密码', icon: 'key', component: 'user/pages/ChangePassword' });
registerMemberPage({ path: 'account/integral', menu: 'account', title: '积分记录', icon: 'star', component: 'user/Ledger', props: { kind: 'score' } });
registerMemberPage({
  path: 'account/balance', menu: 'account', title: '余额记录', icon: 'wallet', component: 'user/Ledger', props: { kind: 'money' },
  buttons: [{ name: 'account/balance/export', title: '导出余额记录' }],
});
registerMemberPage({ path: 'account/signIn', menu: 'account', title: '每日签到', icon: 'calendar', component: 'user/pages/SignIn' });
registerMemberPage({ path: 'account/invoice', menu: 'account', title: '发票', icon: 'receipt', component: 'user/Invoices' });
registerMemberPage({ path: 'account/moduleOrders', menu: 'account', title: '模块订单', icon: 'package', component: 'user/ModuleOrders' });
registerMemberPage({ path: 'account/apiTokens', menu: 'account', title: 'API 令牌', icon: 'key', component: 'user/ApiTokens' });
registerMemberPage({ path: 'account/notice', menu: 'account', title: '站内公告', icon: 'bell', component: 'user/Notices' });
