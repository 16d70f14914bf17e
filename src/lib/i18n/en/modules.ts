import type zh from '../zh-cn/modules';
import type { Messages } from '../types';

export default {
  'modules.title': 'Module market',
  'modules.lead': 'Modules that add features to your site.',
  'modules.empty': 'No modules yet',
  'modules.emptyLead': 'Modules published by developers show up here.',
} as const satisfies Messages<typeof zh>;
