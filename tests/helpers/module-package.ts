// A valid module package for tests that upload one: `atrium.json` for the given uid and version
// (fields overridable) plus any other files, as a stored zip.
import { zip } from './files';

export function moduleManifest(uid: string, version = '1.0.0', over: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    uid, version,
    name: { 'zh-cn': `${uid} 模块`, en: `${uid} module` },
    description: { 'zh-cn': '测试用模块。', en: 'A module for tests.' },
    atrium: '>=0.1.0',
    ...over,
  };
}

export function modulePackage(uid: string, version = '1.0.0', files: { name: string; data: Buffer }[] = [], over: Record<string, unknown> = {}): Buffer {
  return zip([{ name: 'atrium.json', data: Buffer.from(JSON.stringify(moduleManifest(uid, version, over))) }, ...files]);
}
