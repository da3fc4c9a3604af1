/**
 * Makes the MCP icons' PNGs from their SVGs: `npx tsx scripts/make-icons.ts`. The server's SVG
 * is the app's own mark (app/icon.svg, copied to public/icons/ledgerlink.svg); each tool's SVG is
 * drawn by hand in public/icons/tools/<tool>.svg. Each PNG is that SVG rendered at 64 × 64 px
 * with a transparent background by Chromium (/usr/bin/chromium, or CHROMIUM_PATH), and written
 * beside it. Run it after changing an SVG and commit both files; a test checks that every icon
 * the MCP endpoint lists exists, and that each PNG is 64 × 64 (tests/integration/mcp-icons.test.ts).
 */
import { copyFileSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { chromium } from "playwright-core";
import { iconPaths, PNG_SIZE, SERVER_ICON, toolIcon } from "@/lib/mcp/icons";
import { allTools } from "@/lib/mcp/tools";

const ROOT = path.resolve(import.meta.dirname, "..");
const PUBLIC = path.join(ROOT, "public");

copyFileSync(path.join(ROOT, "app/icon.svg"), path.join(PUBLIC, iconPaths(SERVER_ICON).svg));
const icons = [SERVER_ICON, ...allTools.map((tool) => toolIcon(tool.name))];

const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
  args: ["--no-sandbox", "--disable-gpu", "--force-color-profile=srgb"],
});
try {
  const page = await browser.newPage({
    viewport: { width: PNG_SIZE, height: PNG_SIZE },
    deviceScaleFactor: 1,
  });
  for (const icon of icons) {
    const { svg, png } = iconPaths(icon);
    const source = readFileSync(path.join(PUBLIC, svg));
    const dataUrl = `data:image/svg+xml;base64,${source.toString("base64")}`;
    await page.setContent(
      `<html><body style="margin:0;background:transparent"><img src="${dataUrl}" width="${PNG_SIZE}" height="${PNG_SIZE}" style="display:block"></body></html>`,
    );
    await page.waitForFunction(() => document.images[0]?.complete === true);
    writeFileSync(path.join(PUBLIC, png), await page.screenshot({ type: "png", omitBackground: true }));
    console.log(`${png} ← ${svg}`);
  }
} finally {
  await browser.close();
}

// Nothing but the listed icons under public/icons/tools: a removed tool's files go with it.
const listed = new Set(icons.flatMap((icon) => Object.values(iconPaths(icon))));
for (const file of readdirSync(path.join(PUBLIC, "icons/tools")))
  if (!listed.has(`/icons/tools/${file}`)) console.warn(`public/icons/tools/${file} is no tool's icon`);
