import java.util.*;
import java.io.*;

// main creates the reader and stores it in a nested class's static field; that class's methods read it
public class Main {
    static class IO { static BufferedReader br; static StringTokenizer st;
        static int nextInt() throws IOException { while (st == null || !st.hasMoreTokens()) st = new StringTokenizer(br.readLine()); return Integer.parseInt(st.nextToken()); } }
    public static void main(String[] args) throws IOException {
        IO.br = new BufferedReader(new InputStreamReader(System.in));
        int n = IO.nextInt();
        long s = 0;
        for (int i = 0; i < n; i++) s += IO.nextInt();
        System.out.println(s);
    }
}
