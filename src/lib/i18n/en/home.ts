import type zh from '../zh-cn/home';
import type { Messages } from '../types';

export default {
  'home.title': 'Home',
  'home.tagline': 'Questions and answers, documentation, a module market and AI chat: one community for developers.',
  'home.ask.title': 'Community',
  'home.ask.body': 'Ask questions, share what you know, and keep the answers.',
  'home.md.title': 'Docs',
  'home.md.body': 'Read and write documentation in the browser with live preview.',
  'home.modules.title': 'Module market',
  'home.modules.body': 'Find, buy and publish modules for your site.',
  'home.chat.title': 'AI chat',
  'home.chat.body': 'Talk with an AI assistant and watch the answer stream in.',
  'home.open': 'Open',
  'home.latestPosts': 'Latest questions',
  'home.latestPostsEmpty': 'No posts yet. Ask the first question.',
  'home.unsolved': 'Waiting for an answer',
  'home.unsolvedEmpty': 'Every question has an accepted answer.',
  'home.docs': 'Recently updated docs',
  'home.docsEmpty': 'No docs pages yet.',
  'home.newModules': 'New modules',
  'home.popularModules': 'Popular modules',
  'home.modulesEmpty': 'The module market has no modules yet.',
  'home.more': 'See all',
  'home.updated': 'Updated by {author} {time}',
  'home.updatedAnon': 'Updated {time}',
  'home.newPost': 'Ask a question',
} as const satisfies Messages<typeof zh>;
