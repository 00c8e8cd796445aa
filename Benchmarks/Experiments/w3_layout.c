// W3 layout experiment (docs/benchmarks-method.md, "Clustering the sessions by patient, measured").
// Build and run: gcc -O2 -o /tmp/w3_layout Benchmarks/Experiments/w3_layout.c -lsqlcipher
//   /tmp/w3_layout fill        # writes /tmp/w3exp/{A,B,P}.db in dataset order, then measures
//   /tmp/w3_layout fill date   # the same files in date order
//   /tmp/w3_layout             # measures the files already written
#define SQLITE_HAS_CODEC 1
#include <sqlcipher/sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/stat.h>
#define N_PAT 3000
#define N_SES 10
#define Q 600
static unsigned long long rng = 0x12345678;
static unsigned long long rnd(void){ rng ^= rng << 13; rng ^= rng >> 7; rng ^= rng << 17; return rng; }
static void ex(sqlite3 *db, const char *sql){ char *e=0; if(sqlite3_exec(db,sql,0,0,&e)!=SQLITE_OK){fprintf(stderr,"%s: %s\n",sql,e);exit(1);} }
static sqlite3 *opendb(const char *path){ sqlite3 *db; if(sqlite3_open(path,&db)) exit(1);
  ex(db,"PRAGMA key = \"x'00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff'\"");
  ex(db,"PRAGMA cipher_page_size = 4096; PRAGMA cipher_use_hmac = ON; PRAGMA cache_size = -8192; PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL");
  return db; }
static unsigned char pid[N_PAT][16], sid[N_PAT][N_SES][16], did[N_PAT][N_SES][16];
static char notes[601], cc[41], plan[61], title[41], title_es[41], uri[61];
static const char *schemaA =
 "CREATE TABLE patient(id BLOB NOT NULL UNIQUE, name TEXT, deleted_at INTEGER);"
 "CREATE TABLE clinical_session (id BLOB NOT NULL UNIQUE, patient_id BLOB NOT NULL, date_ms INTEGER NOT NULL, type TEXT NOT NULL, duration_minutes INTEGER NOT NULL, status TEXT NOT NULL, created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL, version INTEGER NOT NULL, chief_complaint TEXT, treatment_plan TEXT, notes TEXT);"
 "CREATE INDEX clinical_session_history ON clinical_session(patient_id, date_ms, id);"
 "CREATE INDEX clinical_session_agenda ON clinical_session(date_ms, id);"
 "CREATE TABLE diagnosis (id BLOB NOT NULL UNIQUE, session_id BLOB NOT NULL, code TEXT NOT NULL, title TEXT NOT NULL, title_es TEXT, uri TEXT NOT NULL, release_version TEXT NOT NULL, diagnosis_type TEXT NOT NULL, severity TEXT, diagnosed_at INTEGER NOT NULL, created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL, version INTEGER NOT NULL, clinical_notes TEXT);"
 "CREATE INDEX diagnosis_by_session ON diagnosis(session_id, diagnosed_at, id);"
 "CREATE TABLE session_signature(session_id BLOB PRIMARY KEY, professional_id BLOB, professional_name TEXT, license_number TEXT, signed_at INTEGER, content_sha256 BLOB, encoding_version INTEGER);"
 "CREATE TABLE session_addendum(id BLOB UNIQUE, session_id BLOB, position INTEGER, author_id BLOB, author_name TEXT, created_at INTEGER, reason TEXT, text TEXT);"
 "CREATE INDEX addendum_by_session ON session_addendum(session_id, position);";
static const char *schemaB =
 "CREATE TABLE patient(id BLOB NOT NULL UNIQUE, name TEXT, deleted_at INTEGER);"
 "CREATE TABLE clinical_session (id BLOB NOT NULL UNIQUE, patient_id BLOB NOT NULL, date_ms INTEGER NOT NULL, type TEXT NOT NULL, duration_minutes INTEGER NOT NULL, status TEXT NOT NULL, created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL, version INTEGER NOT NULL, chief_complaint TEXT, treatment_plan TEXT, notes TEXT, PRIMARY KEY (patient_id, date_ms, id)) WITHOUT ROWID;"
 "CREATE INDEX clinical_session_agenda ON clinical_session(date_ms, id);"
 "CREATE TABLE diagnosis (id BLOB NOT NULL UNIQUE, session_id BLOB NOT NULL, code TEXT NOT NULL, title TEXT NOT NULL, title_es TEXT, uri TEXT NOT NULL, release_version TEXT NOT NULL, diagnosis_type TEXT NOT NULL, severity TEXT, diagnosed_at INTEGER NOT NULL, created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL, version INTEGER NOT NULL, clinical_notes TEXT, PRIMARY KEY (session_id, diagnosed_at, id)) WITHOUT ROWID;"
 "CREATE TABLE session_signature(session_id BLOB PRIMARY KEY, professional_id BLOB, professional_name TEXT, license_number TEXT, signed_at INTEGER, content_sha256 BLOB, encoding_version INTEGER);"
 "CREATE TABLE session_addendum(id BLOB UNIQUE, session_id BLOB, position INTEGER, author_id BLOB, author_name TEXT, created_at INTEGER, reason TEXT, text TEXT);"
 "CREATE INDEX addendum_by_session ON session_addendum(session_id, position);";
static const char *schemaP =
 "CREATE TABLE patient (id BLOB PRIMARY KEY NOT NULL, name TEXT);"
 "CREATE TABLE session (id BLOB PRIMARY KEY NOT NULL, patient_id BLOB NOT NULL, starts_at INTEGER NOT NULL, notes TEXT NOT NULL);"
 "CREATE INDEX session_patient ON session(patient_id, starts_at);"
 "CREATE TABLE diagnosis (id BLOB PRIMARY KEY NOT NULL, session_id BLOB NOT NULL, code TEXT NOT NULL, title TEXT NOT NULL);"
 "CREATE INDEX diagnosis_session ON diagnosis(session_id);";
static void fill(const char *path, int plain, const char *schema){
  remove(path); char w[256]; snprintf(w,256,"%s-wal",path); remove(w);
  sqlite3 *db = opendb(path); ex(db, schema); ex(db,"BEGIN");
  sqlite3_stmt *ip,*is,*id;
  if(plain){ sqlite3_prepare_v2(db,"INSERT INTO patient VALUES(?,'x')",-1,&ip,0);
    sqlite3_prepare_v2(db,"INSERT INTO session VALUES(?,?,?,?)",-1,&is,0);
    sqlite3_prepare_v2(db,"INSERT INTO diagnosis VALUES(?,?,'6A70',?)",-1,&id,0);
  } else { sqlite3_prepare_v2(db,"INSERT INTO patient VALUES(?,'x',NULL)",-1,&ip,0);
    sqlite3_prepare_v2(db,"INSERT INTO clinical_session VALUES(?,?,?,'individual',50,'completed',1,1,1,?,?,?)",-1,&is,0);
    sqlite3_prepare_v2(db,"INSERT INTO diagnosis VALUES(?,?,'6A70',?,?,?,'2024-01','primary','moderate',?,1,1,1,NULL)",-1,&id,0); }
  extern int dateorder;
  if(dateorder) for(int p=0;p<N_PAT;p++){ sqlite3_bind_blob(ip,1,pid[p],16,0); sqlite3_step(ip); sqlite3_reset(ip); }
  for(int pp=0;pp<N_PAT*(dateorder?N_SES:1);pp++){ int p = dateorder ? pp % N_PAT : pp;
    if(!dateorder){ sqlite3_bind_blob(ip,1,pid[p],16,0); sqlite3_step(ip); sqlite3_reset(ip); }
    for(int s=(dateorder?pp/N_PAT:0);s<(dateorder?pp/N_PAT+1:N_SES);s++){ long long date = 1700000000000LL + (long long)(rnd()%100000000000ULL);
      sqlite3_bind_blob(is,1,sid[p][s],16,0); sqlite3_bind_blob(is,2,pid[p],16,0); sqlite3_bind_int64(is,3,date);
      if(plain) sqlite3_bind_text(is,4,notes,-1,0); else { sqlite3_bind_text(is,4,cc,-1,0); sqlite3_bind_text(is,5,plan,-1,0); sqlite3_bind_text(is,6,notes,-1,0);} 
      if(sqlite3_step(is)!=SQLITE_DONE){fprintf(stderr,"ins s %s\n",sqlite3_errmsg(db));exit(1);} sqlite3_reset(is);
      sqlite3_bind_blob(id,1,did[p][s],16,0); sqlite3_bind_blob(id,2,sid[p][s],16,0); sqlite3_bind_text(id,3,title,-1,0);
      if(!plain){ sqlite3_bind_text(id,4,title_es,-1,0); sqlite3_bind_text(id,5,uri,-1,0); sqlite3_bind_int64(id,6,date);} 
      if(sqlite3_step(id)!=SQLITE_DONE){fprintf(stderr,"ins d %s\n",sqlite3_errmsg(db));exit(1);} sqlite3_reset(id);
    }
    if(pp%100==99){ ex(db,"COMMIT"); ex(db,"BEGIN"); }
  }
  ex(db,"COMMIT"); sqlite3_finalize(ip); sqlite3_finalize(is); sqlite3_finalize(id);
  ex(db,"PRAGMA wal_checkpoint(TRUNCATE)"); sqlite3_close(db);
}
static double now_us(void){ struct timespec t; clock_gettime(CLOCK_MONOTONIC,&t); return t.tv_sec*1e6+t.tv_nsec/1e3; }
static int cmpd(const void*a,const void*b){ double x=*(double*)a,y=*(double*)b; return x<y?-1:x>y; }
typedef struct { sqlite3 *db; sqlite3_stmt *b,*c,*ex,*hist,*diag,*sig,*add,*pd; int plain; } Side;
#define PAGE " WHERE s.patient_id = ? AND s.date_ms >= ? AND s.date_ms <= ? AND (s.date_ms > ? OR s.id >= ?) AND (s.date_ms < ? OR s.id <= ?)"
static void prep(Side *s, const char *path, int plain){ s->db=opendb(path); s->plain=plain; ex(s->db,"PRAGMA query_only=ON");
  sqlite3_prepare_v2(s->db,"BEGIN",-1,&s->b,0); sqlite3_prepare_v2(s->db,"COMMIT",-1,&s->c,0);
  if(plain){ sqlite3_prepare_v2(s->db,"SELECT id, patient_id, starts_at, notes FROM session WHERE patient_id = ? ORDER BY starts_at DESC LIMIT ?",-1,&s->hist,0);
    sqlite3_prepare_v2(s->db,"SELECT id, session_id, code, title FROM diagnosis WHERE session_id = ?",-1,&s->pd,0); return; }
  sqlite3_prepare_v2(s->db,"SELECT 1 FROM patient WHERE id = ?",-1,&s->ex,0);
  sqlite3_prepare_v2(s->db,"SELECT id, patient_id, date_ms, type, duration_minutes, status, created_at, updated_at, version, chief_complaint, treatment_plan, notes FROM clinical_session WHERE patient_id = ? ORDER BY date_ms DESC, id DESC LIMIT ?",-1,&s->hist,0);
  if(sqlite3_prepare_v2(s->db,"SELECT d.id, d.session_id, d.code, d.title, d.title_es, d.uri, d.release_version, d.diagnosis_type, d.severity, d.diagnosed_at, d.created_at, d.updated_at, d.version, d.clinical_notes FROM clinical_session s JOIN diagnosis d ON d.session_id = s.id" PAGE " ORDER BY s.date_ms DESC, s.id DESC, d.diagnosed_at, d.id",-1,&s->diag,0)) {fprintf(stderr,"%s\n",sqlite3_errmsg(s->db)); exit(1);} 
  sqlite3_prepare_v2(s->db,"SELECT g.session_id, g.professional_id, g.professional_name, g.license_number, g.signed_at, g.content_sha256, g.encoding_version FROM clinical_session s JOIN session_signature g ON g.session_id = s.id" PAGE,-1,&s->sig,0);
  sqlite3_prepare_v2(s->db,"SELECT a.id, a.session_id, a.author_id, a.author_name, a.created_at, a.reason, a.text FROM clinical_session s JOIN session_addendum a ON a.session_id = s.id" PAGE " ORDER BY a.position",-1,&s->add,0);
}
static volatile long sink;
static void touch(sqlite3_stmt *st){ int n=sqlite3_column_count(st); for(int i=0;i<n;i++){ const void *b=sqlite3_column_blob(st,i); sink+= (long)b + sqlite3_column_bytes(st,i);} }
static int history(Side *s, int p){ int rows=0; sqlite3_step(s->b); sqlite3_reset(s->b);
  if(s->plain){ unsigned char ids[N_SES+1][16]; int n=0; sqlite3_bind_blob(s->hist,1,pid[p],16,0); sqlite3_bind_int(s->hist,2,50);
    while(sqlite3_step(s->hist)==SQLITE_ROW){ touch(s->hist); memcpy(ids[n++],sqlite3_column_blob(s->hist,0),16); rows++; } sqlite3_reset(s->hist);
    for(int i=0;i<n;i++){ sqlite3_bind_blob(s->pd,1,ids[i],16,0); while(sqlite3_step(s->pd)==SQLITE_ROW){touch(s->pd);rows++;} sqlite3_reset(s->pd);} }
  else { sqlite3_bind_blob(s->ex,1,pid[p],16,0); if(sqlite3_step(s->ex)!=SQLITE_ROW) exit(2); sqlite3_reset(s->ex);
    sqlite3_bind_blob(s->hist,1,pid[p],16,0); sqlite3_bind_int(s->hist,2,51);
    long long first=0,last=0; unsigned char fid[16],lid[16]; int n=0;
    while(sqlite3_step(s->hist)==SQLITE_ROW){ touch(s->hist); long long d=sqlite3_column_int64(s->hist,2); if(!n){first=d;memcpy(fid,sqlite3_column_blob(s->hist,0),16);} last=d; memcpy(lid,sqlite3_column_blob(s->hist,0),16); n++; rows++; }
    sqlite3_reset(s->hist);
    sqlite3_stmt *q[3]={s->diag,s->sig,s->add};
    for(int k=0;k<3;k++){ sqlite3_stmt *st=q[k]; sqlite3_bind_blob(st,1,pid[p],16,0); sqlite3_bind_int64(st,2,last); sqlite3_bind_int64(st,3,first);
      sqlite3_bind_int64(st,4,last); sqlite3_bind_blob(st,5,lid,16,0); sqlite3_bind_int64(st,6,first); sqlite3_bind_blob(st,7,fid,16,0);
      while(sqlite3_step(st)==SQLITE_ROW){touch(st); if(k==0) rows++;} sqlite3_reset(st);} }
  sqlite3_step(s->c); sqlite3_reset(s->c); return rows; }
int dateorder=0;
int main(int argc, char **argv){ dateorder = argc>2;
  for(int i=0;i<600;i++) notes[i]='a'+(i*7)%26;
  for(int i=0;i<40;i++){cc[i]='c'+i%20; title[i]='T'+i%5; title_es[i]='t'+i%5;}
  for(int i=0;i<60;i++){plan[i]='p'+i%9; uri[i]='u'+i%3;}
  for(int p=0;p<N_PAT;p++){ for(int k=0;k<16;k++) pid[p][k]=rnd(); for(int s=0;s<N_SES;s++) for(int k=0;k<16;k++){ sid[p][s][k]=rnd(); did[p][s][k]=rnd(); } }
  if(argc>1){ mkdir("/tmp/w3exp",0700); fill("/tmp/w3exp/A.db",0,schemaA); fill("/tmp/w3exp/B.db",0,schemaB); fill("/tmp/w3exp/P.db",1,schemaP); }
  Side S[3]; prep(&S[0],"/tmp/w3exp/A.db",0); prep(&S[1],"/tmp/w3exp/B.db",0); prep(&S[2],"/tmp/w3exp/P.db",1);
  static double lat[3][Q]; int pats[Q]; for(int i=0;i<Q;i++) pats[i]=rnd()%N_PAT;
  for(int w=0;w<50;w++) for(int k=0;k<3;k++) history(&S[k], rnd()%N_PAT);
  for(int i=0;i<Q;i++) for(int k=0;k<3;k++){ double t=now_us(); int r=history(&S[k],pats[i]); lat[k][i]=now_us()-t; if(r!=20){fprintf(stderr,"side %d rows %d\n",k,r);exit(3);} }
  const char *nm[3]={"A rowid (MedVault today)","B clustered WITHOUT ROWID","P plain"}; double p50[3];
  for(int k=0;k<3;k++){ qsort(lat[k],Q,sizeof(double),cmpd); p50[k]=lat[k][Q/2]; printf("%-28s p50 %6.1f us  p99 %6.1f us\n",nm[k],p50[k],lat[k][Q*99/100]); }
  printf("A/P %.2f  B/P %.2f\n",p50[0]/p50[2],p50[1]/p50[2]);
  return 0; }
