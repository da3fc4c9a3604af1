import { handlers } from "@/lib/auth";

export const dynamic = "force-dynamic";

// GET|POST /api/auth/* – Auth.js endpoints (sign-in, callback, sign-out, session, csrf)
export const { GET, POST } = handlers;
