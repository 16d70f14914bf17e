export default {
  'chat.title': 'AI 对话',
  'chat.empty': '还没有对话',
  'chat.notConfigured': '本站尚未配置 AI 模型，管理员配置后即可开始对话。',
  'chat.back': '返回首页',
} as const;
