import type zh from '../zh-cn/chat';
import type { Messages } from '../types';

export default {
  'chat.title': 'AI chat',
  'chat.empty': 'No conversations yet',
  'chat.notConfigured': 'No AI model is configured on this site yet; chat starts once an administrator sets one up.',
  'chat.back': 'Back to the home page',
} as const satisfies Messages<typeof zh>;
