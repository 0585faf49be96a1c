import { burn } from '../../cpu';

export const dynamic = 'force-dynamic';

export default async function Post({ params }) {
  const { slug } = await params;
  burn(5);
  return <main>post {slug}</main>;
}
