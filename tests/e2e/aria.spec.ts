// What a screen reader announces on the pages every member goes through (issue 27): the
// accessibility tree of the header, the login and sign-up forms and the AI chat, in both
// languages, through Playwright's aria snapshots. A control without a name, a heading at the wrong
// level or a string in the other language changes the tree and fails here.
import { expect, test } from '@playwright/test';

const TREES = {
  'zh-cn': {
    banner: `
- banner:
  - link "跳到正文"
  - link "Atrium"
  - navigation "主导航":
    - link "社区"
    - link "文档"
    - link "模块市场"
    - link "AI 对话"
  - 'button "语言: English"'
  - button "切换深色模式"
  - link "登录"`,
    login: `
- main:
  - heading "登录" [level=1]
  - tablist:
    - tab "登录" [selected]
    - tab "注册"
  - textbox "账户名 / 邮箱 / 手机号"
  - textbox "密码"
  - checkbox "保持登录" [checked]
  - button "登录"
  - paragraph:
    - button "忘记密码？"
  - paragraph:
    - link "返回首页"`,
    register: `
- main:
  - heading "注册" [level=1]
  - tablist:
    - tab "登录"
    - tab "注册" [selected]
  - textbox "账户名"
  - textbox "密码"
  - group "验证方式":
    - radio "邮箱" [checked]
    - radio "手机号"
  - textbox "邮箱"
  - textbox "验证码"
  - button "获取验证码"
  - button "注册"
  - paragraph:
    - link "返回首页"`,
    chat: `
- main:
  - heading "AI 对话" [level=1]
  - button "新对话"
  - searchbox "搜索对话"
  - navigation "对话记录"
  - paragraph:
    - link "登录"
  - heading "有什么可以帮你？" [level=2]
  - textbox "输入问题，Enter 发送，Shift+Enter 换行"
  - combobox "模型"
  - button "发送" [disabled]`,
  },
  en: {
    banner: `
- banner:
  - link "Skip to content"
  - link "Atrium"
  - navigation "Main navigation":
    - link "Community"
    - link "Docs"
    - link "Modules"
    - link "AI Chat"
  - 'button "Language: 简体中文"'
  - button "Toggle dark mode"
  - link "Log in"`,
    login: `
- main:
  - heading "Log in" [level=1]
  - tablist:
    - tab "Log in" [selected]
    - tab "Sign up"
  - textbox "Account, e-mail or mobile"
  - textbox "Password"
  - checkbox "Keep me logged in" [checked]
  - button "Log in"
  - paragraph:
    - button "Forgot your password?"
  - paragraph:
    - link "Back to the home page"`,
    register: `
- main:
  - heading "Sign up" [level=1]
  - tablist:
    - tab "Log in"
    - tab "Sign up" [selected]
  - textbox "Account name"
  - textbox "Password"
  - group "Verify by":
    - radio "E-mail" [checked]
    - radio "Mobile"
  - textbox "E-mail"
  - textbox "Code"
  - button "Send code"
  - button "Sign up"
  - paragraph:
    - link "Back to the home page"`,
    chat: `
- main:
  - heading "AI chat" [level=1]
  - button "New chat"
  - searchbox "Search conversations"
  - navigation "Conversations"
  - paragraph:
    - link "Log in"
  - heading "How can I help?" [level=2]
  - textbox "Ask a question; Enter sends, Shift+Enter adds a line"
  - combobox "Model"
  - button "Send" [disabled]`,
  },
} as const;

for (const lang of ['zh-cn', 'en'] as const) {
  test(`the header, login, sign-up and chat read the same to a screen reader as they look (${lang})`, async ({ page, context, baseURL }) => {
    await context.addCookies([{ name: 'ba-lang', value: lang, url: baseURL! }]);
    const trees = TREES[lang];
    for (const [path, tree] of [['/user/login', trees.login], ['/user/login?type=register', trees.register], ['/chat', trees.chat]] as const) {
      await page.goto(path);
      await page.waitForFunction(() => !document.querySelector('astro-island[ssr][client="load"]'));
      await expect(page.locator('main'), path).toMatchAriaSnapshot(tree);
    }
    await expect(page.getByRole('banner')).toMatchAriaSnapshot(trees.banner);
  });
}
