// The forum's demo content (`npm run seed -- --demo`): real posts about using Atrium, six in
// Chinese and six in English on the same topics. Every command, variable and behaviour named here
// exists in this repository (README, docs/, .env.example, src/server/cli.ts); keep it that way when the
// product changes, because new members read these posts first.

export interface DemoReply {
  author: 'guide' | 'helper';
  body: string;
  accepted?: boolean;
  comments?: { author: 'guide' | 'helper'; body: string }[];
}

export interface DemoPost {
  locale: 'zh-cn' | 'en';
  category: 'question' | 'discussion' | 'share' | 'announcement';
  author: 'guide' | 'helper';
  title: string;
  body: string;
  tags: string[];
  pinned?: boolean;
  featured?: boolean;
  replies?: DemoReply[];
}

export const DEMO_POSTS: DemoPost[] = [
  // ---------------------------------------------------------------- 1. Welcome (announcement)
  {
    locale: 'zh-cn',
    category: 'announcement',
    author: 'guide',
    pinned: true,
    title: '欢迎来到 Atrium 社区：分类、标签、投票与采纳答案',
    tags: ['公告', '新手指南'],
    body: `欢迎！这里是 Atrium 的社区论坛，可以提问、讨论部署方案、分享教程和踩坑记录。花两分钟读完这篇，你的帖子会更快得到有用的回答。

## 选对分类

| 分类 | 适合发什么 | 说明 |
|---|---|---|
| 问答 | 需要解决的具体问题 | 作者可以采纳一条回复作为答案 |
| 讨论 | 想法、方案对比、功能建议 | 没有"已解决"状态 |
| 分享 | 教程、部署笔记、经验总结 | 优质内容会被设为精华 |
| 公告 | 站点通知和更新说明 | 重要的会置顶 |

## 发帖前的小清单

- [ ] 先搜索一下有没有人问过，中文和英文关键词都可以搜
- [ ] 标题直接写问题本身，例如"设置了 SMTP_HOST 验证码仍写入 outbox"
- [ ] 写明 Atrium 版本（页脚可以看到）、Node 版本和相关日志
- [ ] 加 1～5 个简短的标签，如 \`postgresql\`、\`部署\`、\`smtp\`

## 正文使用 Markdown

帖子和回复都用 Markdown 书写。代码块在开头的三个反引号后写上语言名就会高亮，表格和任务列表也都支持。出于安全考虑，正文中的原始 HTML 不会被渲染，而是按文字原样显示。更多写法请看"分享"分类里的 Markdown 写作帖。

## 投票、采纳与收藏

- 帖子和回复都可以点赞或点踩，每人对每条内容只有一票。觉得有帮助就点赞，让后来的人先看到它。
- 问答帖的作者可以把解决问题的回复**采纳**为答案，采纳后帖子就不再出现在"未解决"列表里。
- 点"收藏"可以把帖子存下来，之后在会员中心的"我的收藏"里找到；自己发的帖子和回复分别在"我的帖子""我的回复"里。

## 举报

遇到广告、人身攻击或违法内容，请点帖子或回复上的"举报"并写明理由，由管理员处理。请不要在回复里争吵。

祝你在这里交流愉快！`,
    replies: [
      {
        author: 'helper',
        body: `新人报到，补充一个小建议：贴配置和日志之前，记得把密码、token 以及 \`DATABASE_URL\` 里的口令打上码。`,
        comments: [
          { author: 'guide', body: '好建议。Atrium 自己的启动日志已经会去掉连接串里的密码，但你手动复制的配置文件还是要自己检查一遍。' },
        ],
      },
    ],
  },
  {
    locale: 'en',
    category: 'announcement',
    author: 'guide',
    pinned: true,
    title: 'Welcome to the Atrium community: how this forum works',
    tags: ['announcement', 'getting-started'],
    body: `Welcome! This is the community forum for Atrium: ask questions, compare deployments and share what you have learned. A few minutes with this post will help your threads get good answers.

## Pick the right category

| Category | Use it for | Good to know |
|---|---|---|
| Question | A concrete problem you want solved | The author can accept one reply as the answer |
| Discussion | Ideas, trade-offs, feature wishes | No "solved" state |
| Share | Tutorials, deployment notes, lessons learned | The best ones get featured |
| Announcement | News about the site | Important ones are pinned |

## Before you post

- [ ] Search first: both English and Chinese keywords work
- [ ] Put the actual problem in the title, e.g. "SMTP_HOST is set but codes still go to data/outbox"
- [ ] Mention your Atrium version (it is in the footer), your Node version and the relevant log lines
- [ ] Add one to five short tags such as \`postgresql\`, \`smtp\` or \`markdown\`

## Write in markdown

Posts and replies are markdown. Name the language after the opening fence and your code is highlighted; tables and task lists work too. Raw HTML is shown as text instead of being rendered, for everyone's safety. The markdown tips post in *Share* has the details.

## Votes, accepted answers and collections

- Vote posts and replies up or down; each member has one vote per post or reply. Upvote what helped, so the next reader finds it first.
- If you asked a question, **accept** the reply that solved it. Questions with an accepted answer leave the "unsolved" list.
- Collect a post to keep it: your collection is under *My collections* in the member center, next to *My posts* and *My replies*.

## Reporting

Spam, abuse or anything illegal: use *Report* on the post or reply and give a short reason, and the moderators take it from there. Please don't argue it out in the replies.

Glad to have you here!`,
    replies: [
      {
        author: 'helper',
        body: `Tip for newcomers: before pasting config files or logs, mask passwords, tokens and the password part of \`DATABASE_URL\`.`,
        comments: [
          { author: 'guide', body: 'Good point. Atrium\'s own start-up log already leaves the password out of the connection string, but a config file you copy by hand does not.' },
        ],
      },
    ],
  },

  // ---------------------------------------------------------------- 2. PGlite → PostgreSQL + Redis (question)
  {
    locale: 'zh-cn',
    category: 'question',
    author: 'helper',
    title: '从内置 PGlite 换到 PostgreSQL + Redis，原来的数据会自动迁移吗？',
    tags: ['postgresql', 'redis', 'pglite', '部署'],
    body: `我们的站点一直用默认配置运行：\`npm start\`，数据都在 \`./data\` 里。现在准备上两台机器做负载均衡，打算换成 PostgreSQL 和 Redis。

## 现在的情况

- 单机运行，没有设置过 \`DATABASE_URL\`，所以用的是内置的 PGlite（\`data/db\`）
- 社区里已经有几十个会员，也用 \`config:set\` 改过一些站点设置
- 计划每台机器用 systemd 启动一个实例

## 我的问题

1. 是只改配置就行，还是需要改代码？
2. 新实例连上 PostgreSQL 之后，PGlite 里的会员和数据会自动导入吗？
3. 两个实例同时启动，会不会重复执行数据库迁移？

目前准备的配置：

\`\`\`bash
export DATABASE_URL=postgres://atrium:secret@10.0.0.5:5432/atrium
export REDIS_URL=redis://10.0.0.6:6379
npm start
\`\`\`

请有经验的朋友指点一下，谢谢！`,
    replies: [
      {
        author: 'guide',
        accepted: true,
        body: `依次回答：

## 1. 不需要改代码

设置了 \`DATABASE_URL\` 就完全不再使用 PGlite；设置了 \`REDIS_URL\`，限流和跨实例事件（比如页面缓存失效）就走 Redis，不设置时都在进程内处理。**每个实例**都要设置这两个变量。每个实例最多打开 \`DATABASE_POOL_SIZE\` 个连接（默认 10），实例多了注意 PostgreSQL 的连接数上限。

## 2. 不会自动迁移

Atrium 不会把 \`data/db\` 里的数据复制到 PostgreSQL。第一次连上空库时，它会执行迁移并写入默认配置，得到的是一个全新的站点。所以要准备：

- 重新创建管理员：\`npm run atrium -- user:create-admin admin admin@example.com 'new-password'\`
- 把之前用 \`config:set\` 改过的设置重新设置一遍
- 如果一定要保留旧数据，请自己准备迁移方案，并先在副本上演练

## 3. 迁移只会执行一次

第一个启动的实例在 PostgreSQL 的 advisory lock 下执行迁移，其他实例会等它完成。

建库示例：

\`\`\`sql
CREATE ROLE atrium LOGIN PASSWORD 'secret';
CREATE DATABASE atrium OWNER atrium;
\`\`\`

启动后日志里应能看到 \`database ready (postgres: …), redis connected\`，连接串中的密码会被隐去。负载均衡的健康检查请指向 \`/healthz\`：数据库不可达或实例正在关闭时它返回 503。`,
        comments: [
          { author: 'helper', body: '谢谢！我们的 Redis 还有别的项目在用，会不会冲突？' },
          { author: 'guide', body: '不会。所有键和频道都带 `REDIS_PREFIX` 前缀（默认 `atrium:`），多个站点共用一个 Redis 时给每个站点设置不同的前缀即可。' },
        ],
      },
      {
        author: 'helper',
        body: `补充一下结果：已经按上面的方法切换完成。另外发现一个好处：用 PostgreSQL 和 Redis 之后，执行 \`npm run atrium -- config:set …\` 这类运维命令不用再先停服务，正在运行的实例会马上生效。`,
      },
    ],
  },
  {
    locale: 'en',
    category: 'question',
    author: 'helper',
    title: 'Moving from embedded PGlite to PostgreSQL and Redis: is my data migrated?',
    tags: ['postgresql', 'redis', 'pglite', 'deployment'],
    body: `We have run Atrium on the defaults for a few months: \`npm start\`, everything in \`./data\`. Now we want two instances behind a load balancer, so PostgreSQL and Redis it is.

## Where we are

- One host, no \`DATABASE_URL\` set, so the embedded PGlite database in \`data/db\`
- A few dozen members, and some site settings changed with \`config:set\`
- Planning one systemd unit per instance, each with an environment file

## Questions

1. Is this only configuration, or do I need code changes?
2. When the new instances start against PostgreSQL, will they pick up the members from PGlite?
3. Both instances start at the same time. Will migrations run twice?

This is the environment file I plan to use:

\`\`\`ini
# /etc/atrium.env, loaded with EnvironmentFile=/etc/atrium.env
DATABASE_URL=postgres://atrium:secret@10.0.0.5:5432/atrium
REDIS_URL=redis://10.0.0.6:6379
\`\`\`

Anything I am missing?`,
    replies: [
      {
        author: 'guide',
        accepted: true,
        body: `Short answers: configuration only; no, nothing is copied; no, migrations are serialised.

## 1. No code changes

With \`DATABASE_URL\` set, PGlite is not used at all. With \`REDIS_URL\` set, rate limits are shared and cross-instance events (page-cache invalidation among them) go through Redis; without it they stay in-process. Set both on **every** instance. Each instance opens up to \`DATABASE_POOL_SIZE\` connections (default 10), so keep PostgreSQL's connection limit in mind as you add instances.

## 2. Your PGlite data stays where it is

Atrium does not copy \`data/db\` into PostgreSQL. On first start against an empty database it applies the migrations and seeds the defaults: you get a fresh site. Plan for:

- creating the administrator again: \`npm run atrium -- user:create-admin admin admin@example.com 'new-password'\`
- repeating every \`config:set\` you had done
- your own migration of the old data if you must keep it, rehearsed on a copy first

## 3. Migrations run once

The first instance to start applies them under a PostgreSQL advisory lock; the others wait for it.

Creating the database:

\`\`\`sql
CREATE ROLE atrium LOGIN PASSWORD 'secret';
CREATE DATABASE atrium OWNER atrium;
\`\`\`

Start-up then logs \`database ready (postgres: …), redis connected\`, with the password left out. Point the load balancer's health check at \`/healthz\`: it answers 503 when the database is unreachable or the instance is shutting down.`,
        comments: [
          { author: 'helper', body: 'Thanks! Can that Redis be shared with our other apps?' },
          { author: 'guide', body: 'Yes. Every key and channel starts with `REDIS_PREFIX` (default `atrium:`), so give each site its own prefix.' },
        ],
      },
      {
        author: 'helper',
        body: `Follow-up for anyone landing here: we switched over last night and it went smoothly. A nice bonus: with PostgreSQL and Redis, operator commands such as \`npm run atrium -- config:set …\` no longer need the server stopped. The running instances pick the change up at once.`,
      },
    ],
  },

  // ---------------------------------------------------------------- 3. Subdomains (share, featured)
  {
    locale: 'zh-cn',
    category: 'share',
    author: 'guide',
    featured: true,
    title: '用子域名部署 Atrium：社区、文档、模块市场各有独立入口',
    tags: ['部署', 'nginx', '子域名'],
    body: `我们的站点最近从单一域名改成了子域名部署，记录一下步骤和几个容易踩的坑。

## 效果

设置 \`SITE_DOMAIN=example.com\` 后，同一个 Atrium 进程根据 \`Host\` 头决定由哪个区域响应：

| 主机名 | 根路径对应 | 说明 |
|---|---|---|
| example.com | 站点首页 | 和以前一样，所有路径照常可用 |
| ask.example.com | \`/ask\` | \`/info/5\` 就是 \`/ask/info/5\`，站点首页在 \`/home\` |
| doc.example.com | \`/md\` | 文档 |
| modules.example.com | \`/modules\` | 模块市场，社区在 \`/communityBack\` |

\`/api\`、\`/user\`、\`/storage\` 和静态资源在每个主机上路径都不变；页面里的链接会自动指向负责它的那个主机。

## 步骤

1. 把四个主机名都解析到服务器（或负载均衡），证书也要覆盖这四个名字。
2. 反向代理必须把 \`Host\` 头原样传给 Atrium：

\`\`\`nginx
server {
  listen 443 ssl;
  server_name example.com ask.example.com doc.example.com modules.example.com;
  location / {
    proxy_pass http://127.0.0.1:4321;
    proxy_set_header Host $host;
    proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;
    proxy_set_header X-Forwarded-Proto $scheme;
  }
}
\`\`\`

3. 给服务设置环境变量并重启：

\`\`\`bash
export SITE_DOMAIN=example.com
export TRUST_PROXY=127.0.0.1
\`\`\`

## 踩坑记录

- \`SITE_DOMAIN\` 只能写裸域名，写成 \`https://example.com\` 服务会在启动时报错退出。
- 代理没有传 \`Host\` 头时，所有请求都会被当成主站，看起来就像子域名"没生效"。不认识的主机名一律按主站处理。
- 登录状态以及语言、主题 Cookie 都设置在 \`.example.com\` 上，在几个子域名之间切换不用重新登录。
- 只有设置了 \`TRUST_PROXY\`（代理的地址，nginx 在本机时是 \`127.0.0.1\`）才会从 \`X-Forwarded-For\` 取客户端地址，否则限流看到的全是代理的地址。写成 \`TRUST_PROXY=1\` 会相信任何来源，服务只在监听 127.0.0.1 时才接受。`,
    replies: [
      {
        author: 'helper',
        body: `分享一下我在本地不用 DNS 的测试方法：

\`\`\`bash
# 在 /etc/hosts 里加一行
127.0.0.1 example.test ask.example.test doc.example.test modules.example.test

SITE_DOMAIN=example.test npm start
\`\`\`

然后打开 http://ask.example.test:4321/ 就是社区首页。跨子域名的链接会保留端口号，不需要反向代理也能看到效果。`,
        comments: [
          { author: 'guide', body: '很实用。补充一点：会员中心 `/user` 在每个子域名下路径都不变，比如 http://ask.example.test:4321/user 可以直接打开。' },
        ],
      },
    ],
  },
  {
    locale: 'en',
    category: 'share',
    author: 'guide',
    featured: true,
    title: 'Serving the forum, docs and modules from their own subdomains',
    tags: ['deployment', 'nginx', 'subdomains'],
    body: `We moved our site from one host name to four. Here is what we did, and what tripped us up.

## What SITE_DOMAIN does

Set \`SITE_DOMAIN=example.com\` and one Atrium process serves each area at the root of its own subdomain, chosen by the \`Host\` header:

| Host | Its root is | Good to know |
|---|---|---|
| example.com | the site home | every path still works as before |
| ask.example.com | \`/ask\` | \`/info/5\` is \`/ask/info/5\`; the site home is \`/home\` |
| doc.example.com | \`/md\` | the documentation books |
| modules.example.com | \`/modules\` | the forum is at \`/communityBack\` here |

\`/api\`, \`/user\`, \`/storage\` and the built assets keep their paths on every host, and links on a page point at the host that owns them.

## Steps

1. Point all four names at the server (or load balancer) and use a certificate that covers them.
2. Pass the \`Host\` header through unchanged:

\`\`\`nginx
server {
  listen 443 ssl;
  server_name example.com ask.example.com doc.example.com modules.example.com;
  location / {
    proxy_pass http://127.0.0.1:4321;
    proxy_set_header Host $host;
    proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;
    proxy_set_header X-Forwarded-Proto $scheme;
  }
}
\`\`\`

3. Set the variables for the service and restart it:

\`\`\`bash
export SITE_DOMAIN=example.com
export TRUST_PROXY=127.0.0.1
\`\`\`

## Gotchas

- \`SITE_DOMAIN\` is a bare domain: \`https://example.com\` stops the server at start with an error saying so.
- If the proxy drops \`Host\`, every request looks like the main site. Unknown host names are always treated as the main site.
- The login cookies and the language and theme cookies are set for \`.example.com\`, so members stay logged in as they move between subdomains.
- Without \`TRUST_PROXY\` (the proxy's address: \`127.0.0.1\` for nginx on the same host) every client address is the proxy's, and rate limits lump all your visitors together. \`TRUST_PROXY=1\` believes any peer, so the server accepts it only while listening on 127.0.0.1.`,
    replies: [
      {
        author: 'helper',
        body: `To try this locally without DNS, I used the hosts file:

\`\`\`bash
# add to /etc/hosts
127.0.0.1 example.test ask.example.test doc.example.test modules.example.test

SITE_DOMAIN=example.test npm start
\`\`\`

http://ask.example.test:4321/ is then the forum index. Links across subdomains keep the port, so it works without a proxy.`,
        comments: [
          { author: 'guide', body: 'Handy. Note that the member center keeps its path on every host, so http://ask.example.test:4321/user works too.' },
        ],
      },
    ],
  },

  // ---------------------------------------------------------------- 4. E-mail codes: SMTP vs outbox (question)
  {
    locale: 'zh-cn',
    category: 'question',
    author: 'helper',
    title: '注册时收不到邮件验证码，日志说写进了 data/outbox？',
    tags: ['smtp', '邮件', '验证码'],
    body: `刚部署好，用邮箱注册时点"发送验证码"提示已发送，但邮箱里什么都没收到。翻服务器日志看到这样一行：

\`\`\`text
[atrium] info mail to me@example.com written to /srv/atrium/data/outbox/1718000000000-mail-me@example.com.txt (no SMTP_HOST configured)
\`\`\`

打开这个文件，验证码确实在里面。

## 我的疑问

- 这是 bug 还是设计如此？
- 要真正发出邮件需要配置哪些变量？我们用的企业邮箱支持 465 和 587 端口。
- 手机短信验证码是不是也一样？

## 环境

- 单机部署，用 systemd 启动
- 没有配置任何 \`SMTP_*\` 变量`,
    replies: [
      {
        author: 'guide',
        accepted: true,
        body: `设计如此。没有设置 \`SMTP_HOST\` 时，所有邮件都会写进 \`DATA_DIR/outbox/\`（默认 \`./data/outbox\`），并在日志里打印文件路径，方便开发时直接从文件里拿验证码。管理员在会员中心也会看到相应提示。

## 配置 SMTP

465 端口是隐式 TLS，需要 \`SMTP_SECURE=1\`；默认的 587 端口不用设置它，服务器支持 STARTTLS 时会自动升级加密。

\`\`\`ini
# systemd 服务文件的 [Service] 段
Environment=SMTP_HOST=smtp.example.com
Environment=SMTP_PORT=465
Environment=SMTP_SECURE=1
Environment=SMTP_USER=no-reply@example.com
Environment=SMTP_PASS=your-app-password
Environment="SMTP_FROM=Atrium <no-reply@example.com>"
\`\`\`

改完执行 \`systemctl daemon-reload\` 再重启服务，环境变量只在启动时读取。\`SMTP_FROM\` 不设置时是 \`Atrium <no-reply@localhost>\`，不少邮件服务要求发件地址和登录账号一致，建议一定要设置。

## 短信

道理一样：没有设置 \`SMS_HTTP_URL\` 时短信也写进 outbox。设置后，Atrium 会向这个地址 POST JSON \`{mobile, template, text}\`，任何 2xx 响应都视为发送成功；\`SMS_HTTP_TOKEN\` 会以 \`Authorization: Bearer …\` 的形式带上。

## 顺便了解一下规则

验证码是 6 位数字，10 分钟内有效；同一地址 60 秒后才能重发，输错 5 次需要重新获取。`,
        comments: [
          { author: 'helper', body: '配置好了，已经能收到邮件。outbox 目录里的旧文件可以删掉吗？' },
          { author: 'guide', body: '可以。那些只是没有配置 SMTP 时写下的副本，Atrium 不会再读取它们。' },
        ],
      },
    ],
  },
  {
    locale: 'en',
    category: 'question',
    author: 'helper',
    title: 'Verification e-mails never arrive: the log says data/outbox',
    tags: ['smtp', 'email', 'sms'],
    body: `Fresh install. The sign-up form says the code was sent, but nothing reaches my inbox. The server log has this line:

\`\`\`text
[atrium] info mail to me@example.com written to /srv/atrium/data/outbox/1718000000000-mail-me@example.com.txt (no SMTP_HOST configured)
\`\`\`

The code is indeed in that file, so sign-up itself works. I checked the spam folder too, and the server can reach our provider's SMTP host on both ports, so the network is not the problem.

## What I would like to know

- Is this a bug, or expected?
- Which variables do I need for real mail? Our provider offers port 465 (SSL) and port 587.
- Does the same apply to text-message codes?

## Environment

- Single host, started by systemd with an environment file
- No \`SMTP_*\` variables set`,
    replies: [
      {
        author: 'guide',
        accepted: true,
        body: `Expected. Until \`SMTP_HOST\` is set, every e-mail is written to \`DATA_DIR/outbox/\` (\`./data/outbox\` by default) and its path is logged, which is handy in development: open the file, read the code. Administrators also see a note about it in the member center.

## Real SMTP

Add these to the environment file and restart; settings are read at start.

\`\`\`ini
SMTP_HOST=smtp.example.com
SMTP_USER=no-reply@example.com
SMTP_PASS=your-app-password
SMTP_FROM="Atrium <no-reply@example.com>"
# Port 465, implicit TLS. For port 587 (the default) leave out these two
# lines: the connection is upgraded with STARTTLS when the server offers it.
SMTP_PORT=465
SMTP_SECURE=1
\`\`\`

Do set \`SMTP_FROM\`: the default is \`Atrium <no-reply@localhost>\`, and many providers only accept a sender that matches the account.

## Text messages

Same idea. Without \`SMS_HTTP_URL\` they land in the outbox too. With it, Atrium POSTs JSON \`{mobile, template, text}\` to that URL and treats any 2xx as sent; \`SMS_HTTP_TOKEN\` goes along as \`Authorization: Bearer …\`.

## Limits worth knowing

| Rule | Value |
|---|---|
| Code | 6 digits, valid for 10 minutes |
| Resend | after 60 seconds |
| Wrong tries | 5, then ask for a new code |`,
        comments: [
          { author: 'helper', body: 'Working now, thanks. Can I delete the old files in data/outbox?' },
          { author: 'guide', body: 'Yes. They are copies written while no SMTP server was configured; Atrium never reads them back.' },
        ],
      },
    ],
  },

  // ---------------------------------------------------------------- 5. Points, check-in, balance, invoices (discussion)
  {
    locale: 'zh-cn',
    category: 'discussion',
    author: 'guide',
    title: '聊聊会员中心：积分、每日签到、余额记录和发票',
    tags: ['会员中心', '积分', '签到', '发票'],
    body: `会员中心（\`/user\`）里和积分、余额相关的几个页面经常被问到，这里整理一下目前的行为，也欢迎大家讨论还缺什么。

## 积分与每日签到

- 每天在"每日签到"点一次即可获得积分，默认 10 分。运营者可以修改：\`npm run atrium -- config:set sign_in_score 5\`，设为 0 则签到不加分。
- "一天"按站点时区计算（\`time_zone\` 设置，默认 Asia/Shanghai）。
- 连续签到会累计天数，断一天就从 1 重新开始。目前每天的奖励相同，不随连续天数增加。
- 每一笔积分变动都记在"积分记录"里，包括变动前后的数值和备注；"账户概览"里有最近 7 天的积分和余额图表。

## 余额

"余额记录"同样是一条条流水，可以导出 CSV（需要所在分组有这个权限，默认会员分组有）。运营者在命令行调整余额或积分，结果为负数时会被拒绝，什么都不会改变：

\`\`\`bash
npm run atrium -- user:money alice 12.50 "活动退款"
npm run atrium -- user:score alice -20 "清理广告帖"
\`\`\`

## 发票

会员可以为**已经从余额中支付**的金额申请发票：填写抬头、税号（可选）和接收邮箱。可开票金额 = 已支付总额 − 待处理和已开具的发票金额。申请后状态为"待处理"，由运营者处理：

\`\`\`bash
npm run atrium -- invoice:list
npm run atrium -- invoice:issue 3 "已发送至邮箱"
npm run atrium -- invoice:reject 4 "抬头与付款方不一致"
\`\`\`

被驳回的金额可以重新申请。

## 想听听大家的意见

1. 连续签到要不要有额外奖励？
2. 积分以后最希望用来做什么？
3. 发票处理放在网页上会不会比命令行更方便？`,
    replies: [
      {
        author: 'helper',
        body: `支持连续签到奖励，比如每满 7 天多给一些。在这之前我们是这样做活动的：用 \`notice:add\` 发一条站内公告，活动结束后用 \`user:score\` 手动发奖励，每一笔都会带着备注出现在会员的积分记录里。`,
        comments: [
          { author: 'guide', body: '现在就可以这么用。备注写清楚一点，会员在积分记录里看到的就是这段文字。' },
        ],
      },
      {
        author: 'guide',
        body: `回答私信里问得比较多的一个问题：Atrium **不会**自动生成发票文件。它只记录申请和处理结果；发票请在你们的开票系统里开好，再用 \`invoice:issue\` 标记为已开具并附上备注。`,
      },
    ],
  },
  {
    locale: 'en',
    category: 'discussion',
    author: 'guide',
    title: 'Points, daily check-in, balance log and invoices: how they work today',
    tags: ['member-center', 'points', 'check-in', 'invoices'],
    body: `Questions about the points and balance pages of the member center (\`/user\`) come up a lot, so here is how they behave today, with a few questions for you at the end.

## Points and the daily check-in

- One check-in a day earns points, 10 by default. Operators change the reward with \`npm run atrium -- config:set sign_in_score 5\`; \`0\` turns it off.
- "A day" follows the site's \`time_zone\` setting (default Asia/Shanghai).
- Consecutive days build a streak; miss a day and it starts again at 1. The reward is the same every day for now.
- Every change is in the points log with the value before and after and a memo, and the overview charts the last seven days of points and balance.

## Balance

The balance log works the same way and can be exported as CSV (a permission of the member's group, which the default member group has). Operators adjust balances and points from the command line; a change that would go below zero is refused and nothing is written:

\`\`\`bash
npm run atrium -- user:money alice 12.50 "Meetup refund"
npm run atrium -- user:score alice -20 "Spam clean-up"
\`\`\`

## Invoices

Members can request an invoice for what they have **paid from their balance**: a title, an optional tax id and the e-mail to send it to. The amount available is what was paid minus what is pending or already issued. A request stays *pending* until an operator decides:

\`\`\`bash
npm run atrium -- invoice:list
npm run atrium -- invoice:issue 3 "Sent by e-mail"
npm run atrium -- invoice:reject 4 "Title does not match the payer"
\`\`\`

A rejected amount can be requested again.

## Over to you

1. Should long streaks earn a bonus?
2. What would you like to spend points on?
3. Would you rather decide invoices on a web page than in the CLI?`,
    replies: [
      {
        author: 'helper',
        body: `+1 for a streak bonus, say every seventh day. Until then we run it as an event: announce it with \`notice:add\`, then hand out the bonus with \`user:score\`. Each one shows up in the member's points log with its memo.`,
        comments: [
          { author: 'guide', body: 'That works today. Keep the memo descriptive: it is exactly what members read in their points log.' },
        ],
      },
      {
        author: 'guide',
        body: `To answer a question I keep getting by mail: Atrium does **not** produce the invoice document. It records the request and your decision; issue the invoice in your accounting system, then mark it with \`invoice:issue\` and a remark.`,
      },
    ],
  },

  // ---------------------------------------------------------------- 6. Writing good markdown (share)
  {
    locale: 'zh-cn',
    category: 'share',
    author: 'guide',
    title: '在论坛里写好 Markdown：代码高亮、表格、任务列表和图片',
    tags: ['markdown', '写作', '教程'],
    body: `排版清楚的帖子更容易得到回答。帖子、回复和文档用的是同一套 Markdown 渲染，在这里学会的写法到处都能用。

## 代码块：一定要写语言名

在开头的三个反引号后写上语言名，服务器渲染时就会高亮，亮色和暗色主题都有：

\`\`\`ts
const res = await fetch('/api/index/index?requiredLogin=0');
const { code, data } = await res.json();
\`\`\`

支持 \`bash\`（或 \`sh\`）、\`ts\`、\`js\`、\`json\`、\`sql\`、\`ini\`、\`yaml\`、\`nginx\`、\`dockerfile\`、\`python\`、\`go\`、\`rust\`、\`diff\` 等。不认识的语言名会按普通文本显示，不影响阅读；贴日志可以用 \`text\`。

## 表格

| 输入 | 效果 |
|---|---|
| \`**粗体**\` | **粗体** |
| \`~~删除线~~\` | ~~删除线~~ |
| \`[链接](https://example.com)\` | 外部链接会带上 \`nofollow ugc\` |

## 任务列表

\`\`\`markdown
- [x] 写清楚复现步骤
- [ ] 采纳解决问题的回复
\`\`\`

会显示成只读的勾选框：

- [x] 写清楚复现步骤
- [ ] 采纳解决问题的回复

## 图片

在编辑框里粘贴或拖入图片会自动上传并插入，也可以手写 \`![说明](地址)\`。上传受站点限制：默认单个文件最大 10 MB，允许 jpg、png、gif、webp 等常见格式，运营者可以用 \`config:set upload_max_size\` 调整。

## 不渲染原始 HTML

出于安全考虑，正文里的 HTML 标签不会被渲染，而是作为文字原样显示，\`javascript:\` 之类的链接也会被拒绝。这样任何人写的内容都不能在别人的浏览器里执行。需要什么效果，请用 Markdown 的写法表达。

## 小技巧

- 每个标题都会生成锚点（中文标题也可以），长帖可以直接链接到某一节。
- 单个换行不会换行，段落之间请空一行。`,
    replies: [
      {
        author: 'helper',
        body: `再补充一个：贴 SQL 时标注 \`sql\`，长查询高亮之后好读很多。比如我用 PostgreSQL 时查积分排行：

\`\`\`sql
SELECT id, username, score FROM "user" ORDER BY score DESC LIMIT 10;
\`\`\``,
      },
      {
        author: 'guide',
        body: `顺便说一下编辑器：带实时预览的编辑器是一个模块，由运营者用 \`npm run atrium -- module:install editor\` 安装。预览和服务器用的是同一套渲染，预览里看到什么，发出去就是什么。`,
      },
    ],
  },
  {
    locale: 'en',
    category: 'share',
    author: 'guide',
    title: 'Writing good markdown here: highlighted code, tables, task lists and images',
    tags: ['markdown', 'writing', 'tips'],
    body: `Well-formatted posts get better answers. Posts, replies and the documentation all go through the same markdown renderer, so what you learn here works everywhere.

## Fenced code: always name the language

Put the language after the opening backticks and the block is highlighted on the server, in light and dark themes:

\`\`\`ts
const res = await fetch('/api/index/index?requiredLogin=0');
const { code, data } = await res.json();
\`\`\`

Names that work include \`bash\` (or \`sh\`), \`ts\`, \`js\`, \`json\`, \`sql\`, \`ini\`, \`yaml\`, \`nginx\`, \`dockerfile\`, \`python\`, \`go\`, \`rust\` and \`diff\`. An unknown name is shown as plain text; use \`text\` for logs.

## Tables

| You type | You get |
|---|---|
| \`**bold**\` | **bold** |
| \`~~old~~\` | ~~old~~ |
| \`[link](https://example.com)\` | an outside link, marked \`nofollow ugc\` |

## Task lists

- [x] Describe how to reproduce it
- [x] Paste the log in a \`text\` block
- [ ] Accept the reply that fixed it

The checkboxes are for display only.

## Images

Paste or drop an image into the editor and it is uploaded and inserted for you; \`![alt text](url)\` works too. Uploads follow the site's limits: 10 MB and common types such as jpg, png, gif and webp by default, which operators change with \`config:set upload_max_size\`.

## No raw HTML

HTML tags in a post are shown as text, not rendered, and \`javascript:\` links are refused. That is deliberate: nothing a member writes can run in another member's browser. Reach for markdown instead.

## Small things

- Every heading gets an anchor (Chinese headings too), so you can link straight to a section of a long post.
- A single line break does not break the line; leave a blank line between paragraphs.`,
    replies: [
      {
        author: 'helper',
        body: `One more: mark queries as \`sql\`, long ones become far easier to review. The one I use on PostgreSQL to see who has the most points:

\`\`\`sql
SELECT id, username, score FROM "user" ORDER BY score DESC LIMIT 10;
\`\`\``,
      },
      {
        author: 'guide',
        body: `About the editor: the editor with live preview is a module, installed by an operator with \`npm run atrium -- module:install editor\`. Its preview uses the same renderer as the server, so what you see there is what gets posted.`,
      },
    ],
  },
];
