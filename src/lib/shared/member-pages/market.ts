// The market's member-center pages: the developer's own, and the review (moved to the console).
import { registerMemberMenu, registerMemberPage } from '../member-center';

registerMemberMenu({ name: 'developer', title: '开发者', icon: 'code' });
registerMemberPage({ path: 'developer/verif', menu: 'developer', title: '开发者认证', icon: 'badge', component: 'user/developer/Verif' });
// The pages other than the application itself are for approved developers only.
registerMemberPage({ path: 'developer/modules', menu: 'developer', title: '我的模块', icon: 'package', component: 'user/developer/Modules', wrap: 'user/developer/ApprovedOnly', editor: true });
registerMemberPage({ path: 'developer/orders', menu: 'developer', title: '销售订单', icon: 'list', component: 'user/developer/Orders', wrap: 'user/developer/ApprovedOnly' });
registerMemberPage({ path: 'developer/earnings', menu: 'developer', title: '收益', icon: 'chart', component: 'user/developer/Earnings', wrap: 'user/developer/ApprovedOnly' });

registerMemberMenu({ name: 'market', title: '市场管理', icon: 'shield', moderator: true });
// The market review moved to the admin console (issue 18); its rule and buttons stay.
registerMemberPage({
  path: 'market/review', menu: 'market', title: '市场审核', icon: 'check', redirect: '/admin/market', moderator: true,
  buttons: [{ name: 'market/approve', title: '审核开发者与模块', moderator: true }, { name: 'market/install', title: '安装站点模块', moderator: true }],
});
