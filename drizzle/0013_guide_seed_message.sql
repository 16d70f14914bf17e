-- The Chinese guide's first revisions said "Guide shipped with Atrium" in English: say it in Chinese.
UPDATE "md_revision" SET "message" = 'Atrium 自带的使用指南'
  WHERE "message" = 'Guide shipped with Atrium' AND "book_id" IN (SELECT "id" FROM "md_book" WHERE "lang" = 'zh-cn');
