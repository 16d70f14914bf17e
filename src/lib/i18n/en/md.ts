import type zh from '../zh-cn/md';
import type { Messages } from '../types';

export default {
  'md.title': 'Docs',
  'md.lead': 'Guides and manuals of this site.',
  'md.empty': 'No books yet',
  'md.emptyLead': 'Books show up here once they are written.',
} as const satisfies Messages<typeof zh>;
