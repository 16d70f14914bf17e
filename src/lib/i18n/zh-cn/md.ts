export default {
  'md.title': '文档',
  'md.lead': '站点的文档与手册。',
  'md.empty': '还没有文档',
  'md.emptyLead': '文档创建后会出现在这里。',
} as const;
