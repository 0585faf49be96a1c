import { burn } from '../../../cpu';

export const dynamic = 'force-dynamic';

export async function GET(request, { params }) {
  const { id } = await params;
  burn(3);
  return Response.json({ id });
}
