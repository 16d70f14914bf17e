import type zh from '../zh-cn/ask';
import type { Messages } from '../types';

export default {
  'ask.title': 'Community',
  'ask.tabs.latest': 'Latest',
  'ask.tabs.hot': 'Hot',
  'ask.tabs.unsolved': 'Unsolved',
  'ask.tabs.featured': 'Featured',
  'ask.empty': 'No posts yet',
  'ask.emptyLead': 'Be the first to ask a question or share something.',
  'ask.newPost': 'New post',
  'ask.search': 'Search',
  'ask.searchPlaceholder': 'Search posts',
  'ask.searchTitle': 'Search: {keywords}',
  'ask.searchEmpty': 'No posts match “{keywords}”',
  'ask.categories': 'Categories',
  'ask.categoriesEmpty': 'No categories yet',
  'ask.tags': 'Popular tags',
  'ask.tagsEmpty': 'No tags yet',
  'ask.post.title': 'New post',
  'ask.post.installEditor': 'Please install editor',
  'ask.post.installEditorLead': 'Posting needs the editor module. An administrator can install the “editor” module from the module market.',
  'ask.lists.category': 'Category',
  'ask.lists.tag': 'Tag',
  'ask.lists.user': 'Posts by member',
} as const satisfies Messages<typeof zh>;
