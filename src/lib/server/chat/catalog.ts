import type { Runtime } from '../runtime';
import { translator } from '../../i18n';
import { assistantModel, mayUse, publicModel, SITE_ASSISTANT, type PublicModel } from './models';
import { chatSettings } from './settings';
import { chatStreams } from './streams';
import type { Asker } from './reply';

/** The models a reader may pick, the site assistant last, and the one to start with. */
export async function readerModels(runtime: Runtime, asker: Pick<Asker, 'userId' | 'groupId' | 'locale'>): Promise<{ list: PublicModel[]; default: string }> {
  const models = (await (await chatStreams(runtime)).models()).filter((m) => mayUse(m, asker)).map(publicModel);
  const list = [...models, assistantModel(translator(asker.locale, 'chat')('chat.assistant.title'))];
  const preferred = (await chatSettings(runtime.site)).defaultModel;
  return { list, default: list.find((m) => m.name === preferred)?.name ?? models[0]?.name ?? SITE_ASSISTANT };
}
