// The commit protocol of a run's trace files (docs/RELIABILITY.md): one run
// per folder, every target checked before any is replaced, stale traceFile_*
// removed after the commit, leftovers of dead runs cleaned, journals rolled
// forward, nothing else touched.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "../TempDirTest.h"
#include "xstack/cmd/report/ReportOutputs.h"
#include "xstack/io/OutputCommit.h"
#include "xstack/render/TraceFileWriter.h"

namespace xstack {
namespace {

namespace fs = std::filesystem;

class OutputCommitTest : public TempDirTest {
 protected:
  std::vector<std::string> names() const {
    std::vector<std::string> n;
    for (const auto& e : fs::directory_iterator(dir_)) n.push_back(e.path().filename().string());
    std::sort(n.begin(), n.end());
    return n;
  }
  std::string slurp(const std::string& name) const {
    std::ifstream f(dir_ / name, std::ios::binary);
    std::stringstream s;
    s << f.rdbuf();
    return s.str();
  }
  void put(const std::string& name, const std::string& text) const {
    std::ofstream(dir_ / name, std::ios::binary) << text;
  }
  // Finished writers for `names` in the folder `c` locked, each holding `tag`
  // in otherData.
  static std::vector<TraceFileWriter> writersFor(const OutputCommit& c,
                                                 const std::vector<std::string>& files,
                                                 const std::string& tag) {
    std::vector<TraceFileWriter> w(files.size());
    for (size_t i = 0; i < files.size(); ++i) {
      EXPECT_TRUE(w[i].open(c.folder(), files[i], {}).ok());
      EXPECT_TRUE(w[i].finish("{\"run\":\"" + tag + "\"}").ok());
    }
    return w;
  }
  // The files of `writers`, for OutputCommit::commit.
  static std::vector<AtomicFile*> filesOf(std::vector<TraceFileWriter>& writers) {
    std::vector<AtomicFile*> files;
    for (auto& w : writers) files.push_back(&w.file());
    return files;
  }
};

TEST_F(OutputCommitTest, NamesOfTemporariesAndTraces) {
  EXPECT_EQ(processToken().size(), 16u);
  EXPECT_TRUE(isXstackTempName(".traceFile_0_0.json.xstack-" + processToken() + ".tmp"));
  EXPECT_TRUE(isXstackTempName(".xstack-commit.xstack-0123456789abcdef.tmp"));
  // Older releases: ".<output>.tmp.<pid>", outputs as the caller says.
  EXPECT_TRUE(isXstackTempName(".traceFile_1_2.json.gz.tmp.4242", isReportOutputName));
  EXPECT_FALSE(isXstackTempName(".traceFile_1_2.json.gz.tmp.4242"));
  EXPECT_FALSE(isXstackTempName(".notes.txt.tmp.4242", isReportOutputName));
  EXPECT_FALSE(isXstackTempName(".mine.tmp"));
  EXPECT_FALSE(isXstackTempName("traceFile_0_0.json"));
  EXPECT_FALSE(isXstackTempName(".x.xstack-0123456789ABCDEF.tmp"));
  EXPECT_FALSE(isXstackTempName(".traceFile_0_0.json.tmp.12a", isReportOutputName));
}

// io/ names no output file: which names are stale is the caller's predicate.
TEST_F(OutputCommitTest, OnlyTheCallersOutputNamesAreStale) {
  put("traceFile_0_0.json", "old");
  put("steps.csv", "old");
  std::vector<std::string> notes;
  {
    OutputCommit c;  // no predicate: nothing of an earlier run is this run's to remove
    ASSERT_TRUE(c.lock(dir_.string(), notes).ok());
    auto w = writersFor(c, {"traceFile_1_0.json"}, "new");
    OutputCommit::Result r;
    ASSERT_TRUE(c.commit(filesOf(w), r).ok());
    EXPECT_EQ(r.staleRemoved, 0u);
  }
  EXPECT_EQ(names(),
            (std::vector<std::string>{"steps.csv", "traceFile_0_0.json", "traceFile_1_0.json"}));
  EXPECT_TRUE(isReportOutputName("steps.csv"));
  EXPECT_TRUE(isReportOutputName("traceFile_2_3.pftrace.gz"));
  EXPECT_FALSE(isReportOutputName("notes.csv"));
}

TEST_F(OutputCommitTest, TemporariesAreExclusive) {
  TraceFileWriter a, b;
  ASSERT_TRUE(a.open((dir_ / "traceFile_0_0.json").string()).ok());
  // Same name, same process: O_EXCL refuses instead of sharing the file.
  EXPECT_FALSE(b.open((dir_ / "traceFile_0_0.json").string()).ok());
}

TEST_F(OutputCommitTest, ASecondRunIntoTheFolderFailsAtOnce) {
  std::vector<std::string> notes;
  OutputCommit first(isReportOutputName), second(isReportOutputName);
  ASSERT_TRUE(first.lock(dir_.string(), notes).ok());
  Status s = second.lock(dir_.string(), notes);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.error().message.find("another xstack run"), std::string::npos);
  EXPECT_TRUE(names().empty());  // no lock file
}

TEST_F(OutputCommitTest, StaleTracesGoAfterTheCommitOtherFilesStay) {
  put("traceFile_0_0.json", "old");
  put("traceFile_0_1.json", "old");
  put("traceFile_5_5.json.gz", "old");
  put("traceFile_1_0.pftrace", "old");
  put("traceFile_notes.txt", "mine");
  put("notes.txt", "mine");
  std::vector<std::string> notes;
  OutputCommit c(isReportOutputName);
  ASSERT_TRUE(c.lock(dir_.string(), notes).ok());
  auto w = writersFor(c, {"traceFile_0_0.json", "traceFile_1_0.json"}, "new");
  OutputCommit::Result r;
  ASSERT_TRUE(c.commit(filesOf(w), r).ok());
  EXPECT_EQ(r.committed, 2u);
  EXPECT_EQ(r.staleRemoved, 3u);
  EXPECT_EQ(names(), (std::vector<std::string>{"notes.txt", "traceFile_0_0.json",
                                               "traceFile_1_0.json", "traceFile_notes.txt"}));
  EXPECT_NE(slurp("traceFile_0_0.json").find("\"new\""), std::string::npos);
}

// A stale output that cannot be removed (here a folder named
// like a trace; as a user, another user's file in a sticky folder) is named
// with the reason, never passed over: the run's outputs are committed and
// the caller makes it rc 3.
// A file made by path (not in the locked folder's descriptor) is refused:
// every file of a commit is made in folder().
TEST_F(OutputCommitTest, AFileNotMadeInTheLockedFolderReplacesNothing) {
  std::vector<std::string> notes;
  OutputCommit c(isReportOutputName);
  ASSERT_TRUE(c.lock(dir_.string(), notes).ok());
  TraceFileWriter w;
  ASSERT_TRUE(w.open((dir_ / "traceFile_0_0.json").string()).ok());
  ASSERT_TRUE(w.finish("{}").ok());
  OutputCommit::Result r;
  Status s = c.commit({&w.file()}, r);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.error().message.find("not written in the locked --out folder"), std::string::npos)
      << s.error().message;
}

// --out renamed and made anew during the run. Every file, the
// listing of stale files, the journal and the removals stay in the folder
// locked at the start; the new folder at the path is not touched; the result
// says where the files went.
TEST_F(OutputCommitTest, AFolderRenamedDuringTheRunGetsTheWholeCommit) {
  const fs::path out = dir_ / "out", old = dir_ / "out.old";
  fs::create_directory(out);
  std::ofstream(out / "traceFile_7_7.json") << "stale";
  std::vector<std::string> notes;
  OutputCommit c(isReportOutputName);
  ASSERT_TRUE(c.lock(out.string(), notes).ok());
  auto w = writersFor(c, {"traceFile_0_0.json"}, "half");  // before the rename
  fs::rename(out, old);
  fs::create_directory(out);
  std::ofstream(out / "traceFile_6_6.json") << "theirs";  // the user's, in the new folder
  std::vector<TraceFileWriter> after(1);
  ASSERT_TRUE(after[0].open(c.folder(), "traceFile_0_1.json", {}).ok());
  ASSERT_TRUE(after[0].finish("{}").ok());
  OutputCommit::Result r;
  ASSERT_TRUE(c.commit({&w[0].file(), &after[0].file()}, r).ok());
  EXPECT_EQ(r.committed, 2u);
  EXPECT_EQ(r.staleRemoved, 1u);
  EXPECT_NE(r.folderMoved.find("was renamed or replaced during the run"), std::string::npos);
  EXPECT_NE(r.folderMoved.find("now at " + old.string()), std::string::npos) << r.folderMoved;
  EXPECT_EQ(r.folderPath, old.string());
  auto namesOf = [](const fs::path& d) {
    std::vector<std::string> n;
    for (const auto& e : fs::directory_iterator(d)) n.push_back(e.path().filename().string());
    std::sort(n.begin(), n.end());
    return n;
  };
  EXPECT_EQ(namesOf(old), (std::vector<std::string>{"traceFile_0_0.json", "traceFile_0_1.json"}));
  EXPECT_EQ(namesOf(out), (std::vector<std::string>{"traceFile_6_6.json"}));
}

// A journal names its folder (device, inode): one copied into another folder
// with its files is removed there, not applied; one of this folder is.
TEST_F(OutputCommitTest, AJournalIsAppliedOnlyInItsFolder) {
  struct stat st {};
  ASSERT_EQ(::stat(dir_.c_str(), &st), 0);
  const std::string here = std::to_string(st.st_dev) + "\t" + std::to_string(st.st_ino);
  const std::string elsewhere = std::to_string(st.st_dev) + "\t" + std::to_string(st.st_ino + 1);
  const std::string t = ".traceFile_0_0.json.xstack-00000000000000aa.tmp";
  for (const std::string& id : {elsewhere, here}) {
    put("traceFile_0_0.json", "old");
    put(t, "new");
    put("traceFile_9_9.json", "stale");
    put(".xstack-commit", "xstack-commit 2\nfolder\t" + id + "\nnew\ttraceFile_0_0.json\t" + t +
                              "\nstale\ttraceFile_9_9.json\n");
    std::vector<std::string> notes;
    OutputCommit c(isReportOutputName);
    ASSERT_TRUE(c.lock(dir_.string(), notes).ok());
    ASSERT_FALSE(notes.empty());
    if (id == elsewhere) {
      EXPECT_NE(notes[0].find("of another folder"), std::string::npos) << notes[0];
      EXPECT_EQ(slurp("traceFile_0_0.json"), "old");
      EXPECT_EQ(names(), (std::vector<std::string>{"traceFile_0_0.json", "traceFile_9_9.json"}));
    } else {
      EXPECT_NE(notes[0].find("1 files renamed into place, 1 stale files removed"),
                std::string::npos)
          << notes[0];
      EXPECT_EQ(slurp("traceFile_0_0.json"), "new");
      EXPECT_EQ(names(), (std::vector<std::string>{"traceFile_0_0.json"}));
    }
  }
}

TEST_F(OutputCommitTest, AStaleFileThatCannotBeRemovedIsNamedWithTheReason) {
  put("traceFile_0_2.json", "old stale");
  fs::create_directory(dir_ / "traceFile_9_9.json");
  std::vector<std::string> notes;
  OutputCommit c(isReportOutputName);
  ASSERT_TRUE(c.lock(dir_.string(), notes).ok());
  auto w = writersFor(c, {"traceFile_0_0.json"}, "new");
  OutputCommit::Result r;
  ASSERT_TRUE(c.commit(filesOf(w), r).ok());
  EXPECT_EQ(r.committed, 1u);
  EXPECT_EQ(r.staleRemoved, 1u);
  ASSERT_EQ(r.staleKept.size(), 1u);
  EXPECT_EQ(r.staleKept[0], (dir_ / "traceFile_9_9.json").string() + ": Is a directory");
  EXPECT_EQ(names(), (std::vector<std::string>{"traceFile_0_0.json", "traceFile_9_9.json"}));
}

TEST_F(OutputCommitTest, ATargetThatIsAFolderReplacesNothing) {
  put("traceFile_0_0.json", "old");
  put("traceFile_0_2.json", "old stale");
  fs::create_directory(dir_ / "traceFile_0_1.json");
  std::vector<std::string> notes;
  OutputCommit c(isReportOutputName);
  ASSERT_TRUE(c.lock(dir_.string(), notes).ok());
  {
    auto w = writersFor(c, {"traceFile_0_0.json", "traceFile_0_1.json"}, "new");
    OutputCommit::Result r;
    Status s = c.commit(filesOf(w), r);
    ASSERT_FALSE(s.ok());
    EXPECT_NE(s.error().message.find("traceFile_0_1.json: is a folder"), std::string::npos)
        << s.error().message;
    EXPECT_NE(s.error().message.find("none was replaced"), std::string::npos);
  }
  EXPECT_EQ(slurp("traceFile_0_0.json"), "old");
  EXPECT_EQ(slurp("traceFile_0_2.json"), "old stale");
  EXPECT_EQ(names(), (std::vector<std::string>{"traceFile_0_0.json", "traceFile_0_1.json",
                                               "traceFile_0_2.json"}));
}

TEST_F(OutputCommitTest, LeftoversOfDeadRunsAreCleanedAndJournalsRolledForward) {
  // A dead run's commit: traceFile_0_0 already renamed, traceFile_0_1 still
  // a temporary, traceFile_9_9 stale; plus a temporary of another dead run.
  const std::string t1 = ".traceFile_0_1.json.xstack-00000000000000aa.tmp";
  put("traceFile_0_0.json", "new 0");
  put("traceFile_0_1.json", "old 1");
  put(t1, "new 1");
  put("traceFile_9_9.json", "stale");
  put(".traceFile_3_3.json.xstack-00000000000000bb.tmp", "junk");
  put(".mine.tmp", "mine");
  put(".xstack-commit",
      "xstack-commit 1\nnew\ttraceFile_0_0.json\t.traceFile_0_0.json.xstack-00000000000000aa.tmp\n"
      "new\ttraceFile_0_1.json\t" +
          t1 +
          "\nstale\ttraceFile_9_9.json\nstale\t../escape\nnew\t../"
          "x\t.y.xstack-00000000000000aa.tmp\n");
  std::vector<std::string> notes;
  OutputCommit c(isReportOutputName);
  ASSERT_TRUE(c.lock(dir_.string(), notes).ok());
  ASSERT_EQ(notes.size(), 2u);
  EXPECT_NE(notes[0].find("completed the interrupted commit"), std::string::npos) << notes[0];
  EXPECT_NE(notes[0].find("1 files renamed into place, 1 stale files removed"), std::string::npos)
      << notes[0];
  EXPECT_NE(notes[1].find("removed 1 temporary files"), std::string::npos) << notes[1];
  EXPECT_EQ(names(),
            (std::vector<std::string>{".mine.tmp", "traceFile_0_0.json", "traceFile_0_1.json"}));
  EXPECT_EQ(slurp("traceFile_0_1.json"), "new 1");
}

// A rename that fails after every check passed (fault hook): the
// message says exactly which files are new and which are old; stale files stay.
TEST_F(OutputCommitTest, AFailedRenameSaysWhichFilesAreNewAndWhichOld) {
  put("traceFile_0_0.json", "old 0");
  put("traceFile_0_1.json", "old 1");
  put("traceFile_0_2.json", "old 2");
  put("traceFile_7_7.json", "stale");
  std::vector<std::string> notes;
  OutputCommit c(isReportOutputName);
  ASSERT_TRUE(c.lock(dir_.string(), notes).ok());
  auto w = writersFor(c, {"traceFile_0_0.json", "traceFile_0_1.json", "traceFile_0_2.json"}, "new");
  ::setenv("XSTACK_INJECT_FAULT", "commit-rename:0", 1);
  OutputCommit::Result r;
  Status s = c.commit(filesOf(w), r);
  ::unsetenv("XSTACK_INJECT_FAULT");
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.error().message.find("new (this run): traceFile_0_0.json; old or absent (not "
                                   "replaced): traceFile_0_1.json, traceFile_0_2.json"),
            std::string::npos)
      << s.error().message;
  EXPECT_NE(slurp("traceFile_0_0.json").find("\"new\""), std::string::npos);
  EXPECT_EQ(slurp("traceFile_0_1.json"), "old 1");
  EXPECT_EQ(slurp("traceFile_0_2.json"), "old 2");
  EXPECT_EQ(slurp("traceFile_7_7.json"), "stale");
  w.clear();
  EXPECT_EQ(names(), (std::vector<std::string>{"traceFile_0_0.json", "traceFile_0_1.json",
                                               "traceFile_0_2.json", "traceFile_7_7.json"}));
}

// SIGTERM (mpirun tearing the job down) removes every
// temporary of the run, with no fixed-size list: 20,000 of them here.
TEST_F(OutputCommitTest, SigtermRemovesEveryTemporaryEvenPast16384) {
  put("traceFile_0_0.json", "old");
  put(".mine.tmp", "mine");
  EXPECT_EXIT(
      {
        std::vector<std::string> notes;
        OutputCommit c(isReportOutputName);
        if (!c.lock(dir_.string(), notes).ok()) std::exit(3);
        std::vector<TraceFileWriter> w(20000);
        for (size_t i = 0; i < w.size(); ++i) {
          const std::string name = "traceFile_" + std::to_string(i) + "_0.json";
          if (!w[i].open((dir_ / name).string()).ok() || !w[i].finish("{}").ok()) std::exit(4);
        }
        std::raise(SIGTERM);
      },
      testing::KilledBySignal(SIGTERM), "");
  EXPECT_EQ(names(), (std::vector<std::string>{".mine.tmp", "traceFile_0_0.json"}));
  EXPECT_EQ(slurp("traceFile_0_0.json"), "old");
}

}  // namespace
}  // namespace xstack
