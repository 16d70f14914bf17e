export default {
  'modules.title': '模块市场',
  'modules.lead': '为站点扩展功能的模块。',
  'modules.empty': '还没有模块',
  'modules.emptyLead': '开发者发布的模块会出现在这里。',
} as const;
