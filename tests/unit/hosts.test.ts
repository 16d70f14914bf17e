import { describe, expect, it } from 'vitest';
import { areaOfHost, linkFor, normalizeApiPath, toAppPath, type HostContext } from '../../src/lib/shared/hosts';

const on = (area: HostContext['area'], port = ''): HostContext => ({ area, port, siteDomain: 'example.com' });

describe('subdomain mapping', () => {
  it('finds the area of a host', () => {
    expect(areaOfHost('ask.example.com', 'example.com')).toEqual({ area: 'ask', port: '' });
    expect(areaOfHost('modules.example.com:8080', 'example.com')).toEqual({ area: 'modules', port: '8080' });
    expect(areaOfHost('doc.example.com', 'example.com').area).toBe('doc');
    expect(areaOfHost('example.com', 'example.com').area).toBe('main');
    expect(areaOfHost('ask.example.com', null).area).toBe('main');
    expect(areaOfHost('evil.com', 'example.com').area).toBe('main');
  });

  it('maps subdomain paths to app paths', () => {
    expect(toAppPath('ask', '/')).toBe('/ask');
    expect(toAppPath('ask', '/info/5')).toBe('/ask/info/5');
    expect(toAppPath('ask', '/home')).toBe('/');
    expect(toAppPath('ask', '/search/x?page=2')).toBe('/ask/search/x?page=2');
    expect(toAppPath('ask', '/?tab=hot')).toBe('/ask?tab=hot');
    expect(toAppPath('doc', '/atrium/intro')).toBe('/md/atrium/intro');
    expect(toAppPath('modules', '/')).toBe('/modules');
    expect(toAppPath('modules', '/editor')).toBe('/modules/editor');
    expect(toAppPath('modules', '/communityBack')).toBe('/ask');
    expect(toAppPath('modules', '/communityBack/info/3')).toBe('/ask/info/3');
    expect(toAppPath('main', '/ask/info/5')).toBe('/ask/info/5');
  });

  it('never rewrites shared paths', () => {
    for (const p of ['/api/index/index', '/_astro/x.js', '/user/login', '/healthz', '/build-manifest.json?t=1', '/favicon.svg']) {
      expect(toAppPath('ask', p)).toBe(p);
    }
  });

  it('renders links for the current host', () => {
    expect(linkFor('/ask/info/5', on('ask'))).toBe('/info/5');
    expect(linkFor('/ask', on('ask'))).toBe('/');
    expect(linkFor('/', on('ask'))).toBe('//example.com/');
    expect(linkFor('/md', on('ask'))).toBe('//doc.example.com/');
    expect(linkFor('/modules/editor', on('ask', '4321'))).toBe('//modules.example.com:4321/editor');
    expect(linkFor('/ask', on('modules'))).toBe('/communityBack');
    expect(linkFor('/chat', on('doc'))).toBe('//example.com/chat');
    expect(linkFor('/user/login', on('doc'))).toBe('//example.com/user/login');
    expect(linkFor('/api/index/index', on('doc'))).toBe('/api/index/index');
    expect(linkFor('/ask/info/5', on('main'))).toBe('/ask/info/5');
    expect(linkFor('/ask/info/5', { area: 'main', port: '', siteDomain: null })).toBe('/ask/info/5');
  });

  it('lower-cases API controllers only', () => {
    expect(normalizeApiPath('/api/Cos/callback')).toBe('/api/cos/callback');
    expect(normalizeApiPath('/api/common/clickCaptcha')).toBe('/api/common/clickCaptcha');
  });
});
