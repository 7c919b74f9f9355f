import java.util.*;

// a queue polled from the front 10^6 times (a BFS or simulation at the limits): O(1) per poll in Java
public class Main {
    public static void main(String[] args) {
        Scanner sc = new Scanner(System.in);
        int n = sc.nextInt();
        Queue<Integer> q = new ArrayDeque<>();
        for (int i = 0; i < n; i++) q.add(i % 1000);
        long s = 0;
        int rounds = 0;
        while (!q.isEmpty()) {
            int v = q.poll();
            s += v;
            if (v % 7 == 3 && rounds++ < n / 2) q.add(v + 1);
        }
        System.out.println(s + " " + rounds);
    }
}
